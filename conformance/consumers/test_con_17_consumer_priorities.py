"""CON-17: consumer priorities (x-priority): a consumer of higher priority receives every
message while it has prefetch capacity; one of lower priority receives only while the
higher ones are blocked; consumers sharing the highest priority share the messages
round-robin.

The equal-share case judges "round-robin" as every rule does (amqp_conformance.fixtures.vocabulary.consumers): that
neither highest consumer starves is a MUST (CON-28), an even share in strict turn a
SHOULD (CON-14), so the same deliveries always get the same verdict.

Every consumer carries x-priority (Qpid gives one without it the highest priority). The
lower-priority consumer registers first, so a broker that ignores priorities and goes
round-robin hands it the first message. Unsupported where the broker advertises
consumer_priorities=false, or does not advertise it and a low-priority consumer
receives while a higher one is free."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONSUMERS, MUST, QUEUE_TYPES, check, deliveries_across,
                                                  expect_no_consumer_starves, expect_round_robin, handled,
                                                  ignores_consumer_priorities, observe, priority_consumers,
                                                  rule, shares, who_got)

RULE = rule("CON-17", "A higher-priority consumer receives while it has capacity; equal highest share round-robin",
            strength=MUST, guide=CONSUMERS, section="priority",
            accepts=("the equal highest consumers served in any order and share so long as neither "
                     "starves; an uneven share or broken turn is non-strict, as in CON-14"))


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
@pytest.mark.case("higher-takes-all")
async def test_higher_priority_consumer_takes_all_while_it_has_capacity(broker, queue_type):
    queue, channels = await priority_consumers(broker, queue_type, [("low", 1, 10), ("high", 10, 2)])
    ignores_consumer_priorities(broker, channels["low"], queue_type)
    # (message, who must get it): high has two slots, so m3 finds it blocked; an ack frees one for m4
    plan = [(b"m1", "high"), (b"m2", "high"), (b"m3", "low"), (b"m4", "high")]
    seen = []
    for body, _ in plan:
        if body == b"m4" and seen and seen[0][0] is channels["high"]:
            channels["high"].ack(seen[0][1].delivery_tag)
            await handled(channels["high"])  # the ack, before m4 is published on another connection
        await broker.publish(queue, body)
        seen += await deliveries_across(list(channels.values()), 1)
    got = {d.body: d.consumer_tag for _, d in seen}
    observe("deliveries", got)
    if any(got.get(body) == "low" for body, who in plan if who == "high"):
        ignores_consumer_priorities(broker, channels["high"], queue_type, who_got(seen))
    check(got == dict(plan), "the high-priority consumer gets every message while it has a free slot; "
          "the low one only while it is blocked", expected=dict(plan), actual=got)


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
@pytest.mark.case("equal-share")
async def test_equal_highest_priorities_share_round_robin(broker, queue_type):
    queue, channels = await priority_consumers(broker, queue_type, [("low", 1, 10), ("high-a", 10, 10),
                                                                    ("high-b", 10, 10)], one_channel=True)
    ignores_consumer_priorities(broker, channels["low"], queue_type)
    bodies = [b"m1", b"m2", b"m3", b"m4"]
    await broker.publish(queue, *bodies)
    seen = await deliveries_across([channels["low"]], len(bodies))  # one channel: arrival order
    order = [(d.consumer_tag, d.body) for _, d in seen]
    observe("delivery order", order)
    got = shares(order, list(channels))
    if got["low"]:
        ignores_consumer_priorities(broker, channels["low"], queue_type, who_got(seen))
    check(not got["low"], "the lower-priority consumer gets nothing while the higher ones have capacity",
          expected="low: 0", actual=got)
    expect_no_consumer_starves(order, ["high-a", "high-b"], len(bodies))
    expect_round_robin(order, ["high-a", "high-b"], bodies)
