"""TX-06: a mandatory message published in a transaction that routes nowhere is
returned at tx.commit, not when it is published (RabbitMQ's behaviour; other brokers
may differ, so a difference is non-strict). A broker that closes the connection for
the unroutable publish instead (Qpid Broker-J's close-when-no-route) breaks the rule too."""


from amqp_conformance.fixtures.vocabulary import CONFIRMS, SHOULD, Closed, Returned, check, rule, violation
from amqp_conformance.fixtures.core import timeouts

RULE = rule("TX-06", "A mandatory unroutable publish in a transaction is returned only after commit",
            strength=SHOULD, guide=CONFIRMS, section="publisher-confirms", requires=("tx",))


async def test_unroutable_mandatory_publish_is_returned_at_commit(broker):
    async with broker.channel() as channel:
        await channel.tx_select()
        channel.publish(b"to nowhere", exchange="amq.direct", routing_key=broker.name("unbound-key"), mandatory=True)
        try:
            await channel.barrier()  # the publish was handled: a return sent for it would be here by now
            returned_early = [e for e in channel.arrivals if isinstance(e, Returned)]
            check(not returned_early, "no basic.return before tx.commit",
                  expected="nothing yet", actual=[f"{r.reply_code} {r.reply_text}" for r in returned_early])

            await channel.tx_commit()
        except Closed as closed:
            raise violation("the unroutable mandatory publish is returned at tx.commit, the channel kept",
                            "basic.return 312 NO_ROUTE after tx.commit-ok", f"{closed.reply} before the commit") from None
        returned = await channel.watch(Returned, within=timeouts.REPLY)
    check(isinstance(returned, Returned), "the commit returns the unroutable mandatory message",
          expected="basic.return 312 NO_ROUTE", actual=str(returned) if returned else "no basic.return")
