"""QOS-01: with a prefetch count of N, a consumer has at most N unacknowledged
deliveries outstanding; the broker holds the rest back until an ack frees a slot. The
slot is freed by whichever delivery is acked: the lowest tag, or any other."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, QUEUE_TYPES, expect_released, fill_prefetch,
                                                  rule)

RULE = rule("QOS-01", "With prefetch N at most N deliveries are unacked; each ack lets one more through",
            strength=MUST, guide=CONFIRMS, section="channel-qos-prefetch")

PREFETCH = 3
READY = 10


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_prefetch_holds_deliveries_until_an_ack(broker, queue_type):
    queue = await broker.queue(queue_type, messages=[b"m%d" % n for n in range(READY)])
    async with broker.channel() as channel:
        held = await fill_prefetch(channel, queue, PREFETCH)
        # Each quiet window also judges the phase before it: a broker that sent more
        # than N before an ack shows the surplus here.
        channel.ack(held[0].delivery_tag)
        await expect_released(channel, 1, f"with prefetch {PREFETCH}, an ack of the lowest tag lets exactly "
                                          f"one more delivery through")
        channel.ack(held[-1].delivery_tag)
        await expect_released(channel, 1, f"with prefetch {PREFETCH}, an ack of a tag other than the lowest "
                                          f"lets exactly one more delivery through")
