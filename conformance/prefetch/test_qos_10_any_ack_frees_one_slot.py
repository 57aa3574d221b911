"""QOS-10: acking any one outstanding delivery, not only the lowest tag, frees exactly one
prefetch slot (MUST). Raising the prefetch in flight should release the extra deliveries
at once, without an ack (SHOULD, so recorded as non-strict): RabbitMQ does so for a
channel-wide (global) prefetch up to 4.2, but applies a per-consumer prefetch only to
consumers started after the change (documented: consumer-prefetch), and 4.3 treats
global as per consumer. That documented outcome is reported non-strict with its reason.

That the raised count becomes the limit is a MUST (the guide: the count defines the
maximum of unacked deliveries, and delivery stops only when it is reached): with more
ready than either count, the channel as a whole holds exactly the raised count, or a
consumer started right after the change (on a second queue) receives exactly it."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, QUEUE_TYPES, Closed, check,
                                                  deliveries_until_quiet, expect_released, fill_prefetch,
                                                  non_strict, observe, rule, unsupported)

RULE = rule("QOS-10", "Acking any one outstanding delivery frees exactly one slot; a raised prefetch releases more",
            strength=MUST, guide=CONFIRMS, section="channel-qos-prefetch")

PREFETCH, RAISED, READY = 4, 6, 14
LATER = "started-after-the-raise"


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
@pytest.mark.case("one-slot")
async def test_acking_any_one_delivery_frees_exactly_one_slot(broker, queue_type):
    queue = await broker.queue(queue_type, messages=[b"m%d" % n for n in range(READY)])
    async with broker.channel() as channel:
        held = await fill_prefetch(channel, queue, PREFETCH)
        channel.ack(held[1].delivery_tag)  # neither the lowest nor the highest
        released = await expect_released(channel, 1, "an ack of a tag in the middle frees exactly one slot")
        channel.ack(released[0].delivery_tag)  # the newest: the highest tag outstanding
        await expect_released(channel, 1, "an ack of the highest outstanding tag frees exactly one slot")


@pytest.mark.parametrize("global_", [False, True], ids=["per-consumer", "per-channel"])
@pytest.mark.case("raise")
async def test_raising_the_prefetch_releases_more(broker, global_):
    queue, later_queue = [await broker.queue(messages=[b"m%d" % n for n in range(READY)]) for _ in range(2)]
    async with broker.channel() as channel:
        try:
            await fill_prefetch(channel, queue, PREFETCH, global_=global_)
            await channel.qos(RAISED, global_=global_)
        except Closed as refused:
            unsupported(f"basic.qos(global={global_}) is refused", str(refused.reply))
        # Started at once, before anything held can time out: where the new count applies
        # only to consumers started after basic.qos, this one shows it.
        await channel.consume(later_queue, consumer_tag=LATER)
        taken = await deliveries_until_quiet(channel, expected=RAISED - PREFETCH)
    extra = [d for d in taken if d.consumer_tag != LATER]
    later = [d for d in taken if d.consumer_tag == LATER]
    observe("more deliveries to the running consumer after the raise, with no ack", len(extra))
    observe("deliveries to a consumer started after the raise", len(later))
    check(len(extra) <= RAISED - PREFETCH, f"never more than the raised limit {RAISED} unacked",
          expected=f"at most {RAISED - PREFETCH} more", actual=len(extra))
    # The raised count is the limit: the channel as a whole reaches it (a channel-wide
    # count), or the consumer started after the change does (a per-consumer count).
    channel_wide, per_consumer = PREFETCH + len(extra) + len(later), len(later)
    check(RAISED in (channel_wide, per_consumer), f"raising the prefetch from {PREFETCH} to {RAISED} releases "
          "more: the raised count is reached, by the channel as a whole or by a consumer started after it",
          expected=f"{RAISED} unacked on the channel, or {RAISED} to the consumer started after the raise",
          actual=f"{channel_wide} on the channel, {per_consumer} to the consumer started after the raise")
    if len(extra) == RAISED - PREFETCH or (extra and channel_wide == RAISED):
        return  # released at once to the running consumer (under a channel-wide count the later one may share)
    if extra:
        non_strict(f"raising the prefetch from {PREFETCH} to {RAISED} released {len(extra)} of "
                   f"{RAISED - PREFETCH} more deliveries to the running consumer: neither the new limit applied "
                   "at once nor left to consumers started later")
    else:
        documented = ("RabbitMQ 4.3 denies global QoS by default and applies it per consumer" if global_ else
                      "RabbitMQ applies a per-consumer prefetch only to consumers started after basic.qos "
                      "(https://www.rabbitmq.com/docs/consumer-prefetch)")
        non_strict(f"raising the prefetch from {PREFETCH} to {RAISED} released 0 of {RAISED - PREFETCH} more "
                   f"deliveries to the running consumer (the outcome RabbitMQ documents: {documented})")
