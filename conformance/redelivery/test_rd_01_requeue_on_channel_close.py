"""RD-01: closing a channel requeues every delivery still unacked on it; the messages
come back with redelivered=true. The connection itself stays open."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, QUEUE_TYPES, expect_open, expect_returned,
                                                  rule)

RULE = rule("RD-01", "Closing a channel requeues its unacked deliveries; they come back with redelivered=true",
            strength=MUST, guide=CONFIRMS, section="automatic-requeueing")

BODIES = [b"first", b"second"]


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_closing_a_channel_requeues_its_unacked_deliveries(broker, queue_type):
    queue = await broker.queue(queue_type, messages=BODIES)
    connection = await broker.connection()
    consumer = await connection.channel()
    await consumer.consume(queue)
    for _ in BODIES:
        await consumer.expect_delivery()

    await consumer.close()

    await expect_returned(broker, queue, BODIES, requirement="closing the channel requeues its unacked deliveries")
    await expect_open(await connection.channel(), "only the channel was closed, not its connection")
