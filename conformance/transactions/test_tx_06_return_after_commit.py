"""TX-06: a mandatory publish in a transaction that routes nowhere is returned, not lost.
The BOOK: a transaction sees a message safely to the exchange, and one that no queue
takes is lost unless the publisher sets mandatory; mandatory means the broker answers
with basic.return (AMQP 0-9-1, basic.publish). When the return comes, no guide sentence
says: before tx.commit-ok or after it (RabbitMQ: at the commit) are both a pass, and the
report records which.

A close that names the missing route (312 NO_ROUTE: Qpid Broker-J's close-when-no-route)
tells the publisher too, but is not the return: non-strict. Any other close, or nothing
at all, loses the message silently: fail. The non-mandatory case is TX-11."""

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, NO_ROUTE, Closed, Returned, check, non_strict,
                                                  observe, rule, timeouts)

RULE = rule("TX-06", "A mandatory unroutable publish in a transaction is returned (before or after the commit)",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms", requires=("tx",),
            accepts=("the return before tx.commit-ok or after it; a close with 312 NO_ROUTE instead of the "
                     "return is non-strict"))


async def test_an_unroutable_mandatory_publish_in_a_transaction_is_returned(broker):
    async with broker.channel() as channel:
        await channel.tx_select()
        channel.publish(b"to nowhere", exchange="amq.direct", routing_key=broker.name("unbound-key"), mandatory=True)
        try:
            await channel.barrier()  # the publish was handled: a return sent for it would be here by now
            early = [r for r in channel.arrivals if isinstance(r, Returned)]
            observe("returned before tx.commit", [f"{r.reply_code} {r.reply_text}" for r in early] or "nothing")
            await channel.tx_commit()
        except Closed as closed:
            observe("outcome seen", f"{closed.reply} before the commit")
            check(closed.reply.code == NO_ROUTE, "a mandatory unroutable publish is not dropped silently: "
                  "the broker returns it (or names the missing route)",
                  expected="basic.return (or a close with 312 NO_ROUTE)", actual=str(closed.reply))
            non_strict("the channel or connection was closed with 312 NO_ROUTE instead of a basic.return",
                       expected="basic.return", actual=str(closed.reply))
            return
        late = None if early else await channel.watch(Returned, within=timeouts.REPLY)
    if not early:
        observe("returned after tx.commit", f"{late.reply_code} {late.reply_text}"
                if isinstance(late, Returned) else f"nothing within {timeouts.REPLY:.1f} s")
    check(bool(early) or isinstance(late, Returned), "a mandatory publish that routes nowhere is returned",
          expected=f"basic.return before tx.commit-ok or within {timeouts.REPLY:.1f} s after it",
          actual=str(late))
