"""TX-06: when a mandatory message published in a transaction that routes nowhere is
returned. RabbitMQ returns it at tx.commit, not when it is published; no guide sentence
says when a broker must (the BOOK says only that an unroutable message is lost to a
transaction unless it is returned: PC-08 and the mandatory flag), so this is recorded,
never judged (INFO): a return before the commit, after it, none, or a close of the
channel or connection (Qpid Broker-J's close-when-no-route) is what was seen."""

from amqp_conformance.fixtures.vocabulary import CONFIRMS, INFO, Closed, Returned, observe, rule
from amqp_conformance.fixtures.core import timeouts

RULE = rule("TX-06", "When a mandatory unroutable publish in a transaction is returned (RabbitMQ: after commit)",
            strength=INFO, guide=CONFIRMS, section="publisher-confirms", requires=("tx",))


async def test_when_an_unroutable_mandatory_publish_in_a_transaction_is_returned(broker):
    async with broker.channel() as channel:
        await channel.tx_select()
        channel.publish(b"to nowhere", exchange="amq.direct", routing_key=broker.name("unbound-key"), mandatory=True)
        try:
            await channel.barrier()  # the publish was handled: a return sent for it would be here by now
            early = [f"{r.reply_code} {r.reply_text}" for r in channel.arrivals if isinstance(r, Returned)]
            observe("returned before tx.commit", early or "nothing")
            await channel.tx_commit()
        except Closed as closed:
            observe("outcome seen", f"{closed.reply} before the commit")
            return
        returned = await channel.watch(Returned, within=timeouts.REPLY)
    observe("returned after tx.commit", f"{returned.reply_code} {returned.reply_text}"
            if isinstance(returned, Returned) else f"nothing within {timeouts.REPLY:.1f} s")
