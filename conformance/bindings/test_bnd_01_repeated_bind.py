"""BND-01: binding a queue twice with the same exchange, key and arguments is no error
and makes no second binding: both binds are answered with bind-ok, and one publish that
matches puts one copy in the queue.

Source: queue.bind, rule [duplicates]."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, RoutingProbe, check, expect_bound, new_exchange, rule)

RULE = rule("BND-01", "An identical queue.bind repeated is accepted and routes one copy",
            strength=MUST, guide=SPEC, section="queue.bind", source="queue/bind [duplicates]",
            accepts="bind-ok twice and exactly one copy")


async def test_repeated_bind_keeps_one_binding(broker):
    probe, queue, key = await RoutingProbe.open(broker), await broker.queue(), broker.name("key")
    exchange = await new_exchange(broker, probe.channel, "direct")
    await expect_bound(probe.channel, queue, exchange, key)
    await expect_bound(probe.channel, queue, exchange, key, requirement="the same bind again is answered with bind-ok")
    copies = await probe.copies(queue, exchange, key)
    check(copies == 1, "a matching publish puts one copy in the queue", expected="1 copy", actual=f"{copies}")
