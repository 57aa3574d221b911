"""BND-03: a durable queue can be bound to a transient exchange: the bind is answered
with bind-ok and the binding routes.

Source: queue.bind, rule [transient-exchange]."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, RoutingProbe, check, expect_bound, new_exchange, rule)

RULE = rule("BND-03", "A durable queue binds to a transient exchange",
            strength=MUST, guide=SPEC, section="queue.bind", source="queue/bind [transient-exchange]",
            accepts="bind-ok and one copy routed")


async def test_durable_queue_binds_to_a_transient_exchange(broker):
    probe, queue, key = await RoutingProbe.open(broker), await broker.queue(), broker.name("key")
    exchange = await new_exchange(broker, probe.channel, "direct", durable=False)
    await expect_bound(probe.channel, queue, exchange, key,
                       requirement="a durable queue is bound to a transient exchange")
    copies = await probe.copies(queue, exchange, key)
    check(copies == 1, "the binding routes", expected="1 copy", actual=f"{copies}")
