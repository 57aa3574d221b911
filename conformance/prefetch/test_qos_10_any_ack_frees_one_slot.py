"""QOS-10: acking any one outstanding delivery, not only the lowest tag, frees exactly one
prefetch slot (MUST). Raising the prefetch in flight should release the extra deliveries
at once, without an ack (SHOULD, so recorded as non-strict): RabbitMQ does so for a
channel-wide (global) prefetch up to 4.2, but applies a per-consumer prefetch only to
consumers started after the change (documented: consumer-prefetch), and 4.3 treats
global as per consumer. That documented outcome is reported non-strict with its reason."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, QUEUE_TYPES, Closed, check,
                                                  deliveries_until_quiet, expect_released, fill_prefetch,
                                                  non_strict, observe, rule, unsupported)

RULE = rule("QOS-10", "Acking any one outstanding delivery frees exactly one slot (a raised prefetch: SHOULD)",
            strength=MUST, guide=CONFIRMS, section="channel-qos-prefetch")

PREFETCH, RAISED, READY = 4, 6, 14


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
async def test_raising_the_prefetch_releases_more_at_once(broker, global_):
    queue = await broker.queue(messages=[b"m%d" % n for n in range(READY)])
    async with broker.channel() as channel:
        try:
            await fill_prefetch(channel, queue, PREFETCH, global_=global_)
            await channel.qos(RAISED, global_=global_)
        except Closed as refused:
            unsupported(f"basic.qos(global={global_}) is refused", str(refused.reply))
        extra = await deliveries_until_quiet(channel, expected=RAISED - PREFETCH)
    observe("more deliveries after the raise, with no ack", len(extra))
    check(len(extra) <= RAISED - PREFETCH, f"never more than the raised limit {RAISED} unacked",
          expected=f"at most {RAISED - PREFETCH} more", actual=len(extra))
    if 0 < len(extra) < RAISED - PREFETCH:
        non_strict(f"raising the prefetch from {PREFETCH} to {RAISED} released {len(extra)} of "
                   f"{RAISED - PREFETCH} more deliveries: neither the new limit applied at once nor left to "
                   "consumers started later")
    elif not extra:
        documented = ("RabbitMQ 4.3 denies global QoS by default and applies it per consumer" if global_ else
                      "RabbitMQ applies a per-consumer prefetch only to consumers started after basic.qos "
                      "(https://www.rabbitmq.com/docs/consumer-prefetch)")
        non_strict(f"raising the prefetch from {PREFETCH} to {RAISED} released 0 of {RAISED - PREFETCH} more "
                   f"deliveries to the running consumer (the outcome RabbitMQ documents: {documented})")
