"""RQ-04: basic.nack with tag 0, multiple=true and requeue=true means "everything
received so far": every outstanding delivery of the channel goes back to the queue."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, QUEUE_TYPES, expect_open, expect_returned,
                                                  get_unacked, rule)

RULE = rule("RQ-04", "nack(0, multiple=true, requeue=true) requeues everything outstanding",
            strength=MUST, guide=CONFIRMS, section="consumer-nacks-requeue")

BODIES = [b"m1", b"m2", b"m3"]


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_nack_zero_multiple_requeues_every_outstanding_delivery(broker, queue_type):
    queue = await broker.queue(queue_type, messages=BODIES)
    async with broker.channel() as channel:
        await get_unacked(channel, queue, len(BODIES))
        channel.nack(0, multiple=True, requeue=True)
        await expect_open(channel, "nack(0, multiple=true) is not an error")
        await expect_returned(broker, queue, BODIES, redelivered=None,
                              requirement="every outstanding delivery is back in the queue, the channel still open")
