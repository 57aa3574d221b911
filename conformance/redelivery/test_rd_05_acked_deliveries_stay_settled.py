"""RD-05: an ack sent before a channel closes is honoured: the close requeues only the
deliveries still unacked, never one already acked."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, QUEUE_TYPES, expect_nothing_returns,
                                                  expect_returned, get_unacked, rule)

RULE = rule("RD-05", "Acked deliveries are not requeued by the close that follows",
            strength=MUST, guide=CONFIRMS, section="automatic-requeueing")


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_close_requeues_only_the_unacked_delivery(broker, queue_type):
    queue = await broker.queue(queue_type, messages=[b"acked", b"unacked"])
    async with broker.channel() as channel:
        acked, _ = await get_unacked(channel, queue, 2)
        channel.ack(acked.delivery_tag)
        # no barrier: the ack sent just before the close must be honoured all the same

    await expect_returned(broker, queue, [b"unacked"], redelivered=None,
                          requirement="the close requeues the unacked delivery and not the acked one")
    await expect_nothing_returns(broker, queue, "the acked delivery never comes back")
