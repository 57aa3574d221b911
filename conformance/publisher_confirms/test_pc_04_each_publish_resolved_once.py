"""PC-04: every message published in confirm mode is resolved exactly once: acked or
nacked, never both, never twice (multiple=true ranges expanded)."""

from amqp_conformance.fixtures.vocabulary import CONFIRMS, ConfirmLedger, MUST, check, observe, rule, timeouts

RULE = rule("PC-04", "Every publish in confirm mode is acked or nacked exactly once",
            strength=MUST, guide=CONFIRMS, section="server-sent-nacks", requires=("confirms",))

MESSAGES = 30


async def test_routable_unroutable_and_refused_publishes_are_each_resolved_once(broker):
    routable = await broker.queue()
    # A queue that refuses publishes past its length makes the broker nack them.
    full = await broker.queue(arguments={"x-max-length": 1, "x-overflow": "reject-publish"})
    destinations = [("", routable), ("amq.direct", broker.name("unbound-key")), ("", full)]
    ledger = ConfirmLedger()
    async with broker.channel() as channel:
        await channel.confirm_select()
        for n in range(MESSAGES):
            exchange, routing_key = destinations[n % len(destinations)]
            ledger.send(channel, b"%d" % n, exchange=exchange, routing_key=routing_key)
        await ledger.collect(channel, linger=timeouts.NEGATIVE_WINDOW)

    observe("nacked", sum(1 for kinds in ledger.resolution.values() if kinds[0].startswith("nack")))
    check(not ledger.outstanding, "every published message is confirmed or nacked",
          expected=f"sequence numbers 1-{MESSAGES} resolved", actual=f"never resolved: {ledger.outstanding}")
    check(not ledger.problems and not ledger.ack_and_nack(), "no sequence number is resolved twice or both ways",
          expected="each resolved exactly once", actual=ledger.problems)
