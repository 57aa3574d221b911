"""PC-06: confirms usually arrive in publish order; the guide lets the broker reorder
them (an unroutable message's ack can overtake routable persistent ones), so
applications must not depend on it. Among messages to the same queue the order should
hold (SHOULD); the whole observed order is recorded (INFO)."""

from amqp_conformance.fixtures.vocabulary import CONFIRMS, SHOULD, ConfirmLedger, check, observe, rule

RULE = rule("PC-06", "Confirms usually arrive in publish order; the observed order is recorded",
            strength=SHOULD, guide=CONFIRMS, section="publisher-confirms-ordering", requires=("confirms",))

PAIRS = 20


async def test_confirm_order_is_recorded_and_same_queue_order_holds(broker):
    durable_queue = await broker.queue()
    ledger = ConfirmLedger()
    routed = []
    async with broker.channel() as channel:
        await channel.confirm_select()
        for n in range(PAIRS):
            routed.append(ledger.send(channel, b"%d" % n, routing_key=durable_queue, persistent=True))
            ledger.send(channel, b"%d" % n, exchange="amq.direct", routing_key=broker.name("nowhere"))
        await ledger.collect(channel)

    observe("resolution order", " ".join(map(str, ledger.resolved_order)))
    observe("in publish order", ledger.resolved_order == sorted(ledger.resolved_order))
    check(not ledger.outstanding, "every publish is confirmed (needed to observe the order)",
          expected="all resolved", actual=f"never resolved: {ledger.outstanding}")
    routed_order = [seq for seq in ledger.resolved_order if seq in routed]
    check(routed_order == sorted(routed_order), "confirms for one queue arrive in publish order",
          expected=sorted(routed_order), actual=routed_order)
