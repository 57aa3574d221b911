"""BND-02: a message that matches several bindings of the same queue is queued there
once: bound to a topic exchange by `<t>.#` and by `#.<t>`, the queue gets one copy of a
message published with key `<t>.<t>`.

Source: queue.bind, rule [unique]. A broker without topic exchanges is unsupported (EX-02
judges the type)."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, RoutingProbe, check, expect_bound, new_exchange, rule)

RULE = rule("BND-02", "A message matching several bindings of one queue is queued once",
            strength=MUST, guide=SPEC, section="queue.bind", source="queue/bind [unique]",
            accepts="exactly one copy; a broker without topic exchanges is unsupported")


async def test_message_matching_two_bindings_is_queued_once(broker):
    probe, queue, token = await RoutingProbe.open(broker), await broker.queue(), broker.name("t")
    exchange = await new_exchange(broker, probe.channel, "topic")
    await expect_bound(probe.channel, queue, exchange, f"{token}.#")
    await expect_bound(probe.channel, queue, exchange, f"#.{token}")
    copies = await probe.copies(queue, exchange, f"{token}.{token}")
    check(copies == 1, "a message matching both bindings is queued once", expected="1 copy", actual=f"{copies}")
