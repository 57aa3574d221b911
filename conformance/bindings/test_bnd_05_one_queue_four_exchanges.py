"""BND-05: a queue can be bound to several exchanges at once: bound to four, it gets a
copy of a message published through each of them.

Source: queue.bind, rule [binding-count] (a SHOULD: the spec asks for at least four
bindings per queue). A missing copy is non-strict."""

from amqp_conformance.fixtures.vocabulary import (SHOULD, SPEC, RoutingProbe, expect_bound, new_exchange, non_strict,
                                                  observe, rule)

RULE = rule("BND-05", "One queue bound to four exchanges gets messages through each",
            strength=SHOULD, guide=SPEC, section="queue.bind", source="queue/bind [binding-count]",
            accepts="a missing copy is non-strict")

EXCHANGES = 4


async def test_queue_bound_to_four_exchanges_gets_each_message(broker):
    probe, queue, key = await RoutingProbe.open(broker), await broker.queue(), broker.name("key")
    exchanges = [await new_exchange(broker, probe.channel, "direct") for _ in range(EXCHANGES)]
    for exchange in exchanges:
        await expect_bound(probe.channel, queue, exchange, key)
    copies = [await probe.copies(queue, exchange, key) for exchange in exchanges]
    observe("copies through each exchange", copies)
    if copies != [1] * EXCHANGES:
        non_strict("a queue bound to four exchanges did not get one copy through each",
                   expected=[1] * EXCHANGES, actual=copies)
