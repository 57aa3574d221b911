"""RD-03: a channel closed by the broker for a protocol error (here an ack of an unknown
tag, ACK-03) requeues the deliveries it held unacked, like a client's channel close, and
each comes back flagged redelivered=true (CONFIRMS, automatic requeueing: a requeued
delivery carries the flag)."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, QUEUE_TYPES, expect_closed, expect_returned,
                                                  get_unacked, rule)

RULE = rule("RD-03", "A channel closed by a protocol exception requeues its unacked deliveries",
            strength=MUST, guide=CONFIRMS, section="automatic-requeueing")

BODIES = [b"held-1", b"held-2"]
NEVER_DELIVERED = 999


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_channel_exception_requeues_unacked_deliveries(broker, queue_type):
    queue = await broker.queue(queue_type, messages=BODIES)
    connection = await broker.connection()
    channel = await connection.channel()
    await get_unacked(channel, queue, len(BODIES))

    channel.ack(NEVER_DELIVERED)
    await expect_closed(channel, code=406, requirement="the unknown tag closes the channel (ACK-03)")

    await expect_returned(broker, queue, BODIES, requirement="the deliveries held by the closed channel are requeued")
