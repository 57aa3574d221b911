"""CON-17: consumer priorities (x-priority): a consumer of higher priority receives every
message while it has prefetch capacity; one of lower priority receives only while the
higher ones are blocked; consumers sharing the highest priority share the messages
round-robin.

Every consumer carries x-priority (Qpid gives one without it the highest priority). The
lower-priority consumer registers first, so a broker that ignores priorities and goes
round-robin hands it the first message. Unsupported where the broker advertises
consumer_priorities=false, or does not advertise it and a low-priority consumer
receives while a higher one is free."""

import pytest

from fixtures import (CONSUMERS, MUST, QUEUE_TYPES, check, deliveries_across, ignores_consumer_priorities,
                      non_strict, observe, priority_consumers, rule, who_got)

RULE = rule("CON-17", "A higher-priority consumer receives while it has capacity; equal highest share round-robin",
            strength=MUST, guide=CONSUMERS, section="priority")


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
    shares = {tag: sum(1 for who, _ in order if who == tag) for tag in channels}
    if shares["low"]:
        ignores_consumer_priorities(broker, channels["low"], queue_type, who_got(seen))
    check(shares == {"low": 0, "high-a": 2, "high-b": 2}, "the two highest-priority consumers share the "
          "messages evenly and the lower one gets none", expected={"low": 0, "high-a": 2, "high-b": 2}, actual=shares)
    if any(order[i][0] == order[i + 1][0] for i in range(len(order) - 1)):
        non_strict(f"the equal-priority consumers did not alternate strictly: {order}")
