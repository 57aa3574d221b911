"""TX-11: a publish without the mandatory flag that routes nowhere, inside a transaction
that is committed, is dropped: no basic.return comes for it, tx.commit is answered
commit-ok as usual, and no queue holds it.

One transaction publishes two messages through amq.direct (an exchange every AMQP 0-9-1
broker has): one with the key the test's queue is bound by, one with a key nothing is
bound by. After commit-ok the bound queue holds the routed message alone; the exchange
did not mistake the unroutable one for it. TX-06 is the mandatory case (returned at commit)."""

from pamqp.commands import Queue

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, Closed, Returned, check, rule, timeouts,
                                                  violation)

RULE = rule("TX-11", "A non-mandatory unroutable publish in a committed transaction is dropped: no return, "
            "commit-ok", strength=MUST, guide=CONFIRMS, section="publisher-confirms", requires=("tx",))

EXCHANGE = "amq.direct"


async def test_unroutable_publish_in_a_committed_transaction_is_dropped(broker):
    queue = await broker.queue()
    bound_key, unbound_key = broker.name("bound-key"), broker.name("unbound-key")
    async with broker.channel() as channel:
        await channel.call(Queue.Bind(queue=queue, exchange=EXCHANGE, routing_key=bound_key), Queue.BindOk)
        await channel.tx_select()
        channel.publish(b"routed", exchange=EXCHANGE, routing_key=bound_key)
        channel.publish(b"to nowhere", exchange=EXCHANGE, routing_key=unbound_key)
        try:
            await channel.tx_commit()
        except Closed as closed:
            raise violation("a transaction holding a non-mandatory unroutable publish commits as usual",
                            "tx.commit-ok", str(closed.reply)) from None
        returned = await channel.watch(Returned, within=timeouts.NEGATIVE_WINDOW)
        returns = [event for event in channel.arrivals if isinstance(event, Returned)]
    check(not returns, "a non-mandatory unroutable publish is not returned",
          expected=f"no basic.return before or {timeouts.NEGATIVE_WINDOW:.1f} s after tx.commit-ok",
          actual=[f"{r.reply_code} {r.reply_text}: {r.body!r}" for r in returns] or str(returned))
    held = [delivery.body for delivery in await broker.take_all(queue, expected=1)]
    check(held == [b"routed"], "after the commit the bound queue holds the routed message alone: no queue "
          "holds the unroutable one", expected=[b"routed"], actual=held)
