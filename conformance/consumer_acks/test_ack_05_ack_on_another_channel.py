"""ACK-05: a delivery must be settled (ack, nack or reject) on the channel that received
it. Settling it on another channel closes *that* channel with 406; the receiving channel
stays open and the message stays unacked there.

The second channel is fresh: it has no tag 1 of its own, which would silently settle the
wrong message. (A second channel that does hold deliveries of its own is ACK-14's case.)"""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, SETTLE_METHODS, expect_closed,
                                                  expect_still_held, rule, settle)

RULE = rule("ACK-05", "Acking on another channel closes that channel; the receiving channel is untouched",
            strength=MUST, guide=CONFIRMS, section="consumer-acks-delivery-tags")


@pytest.mark.parametrize("method", SETTLE_METHODS)
async def test_settle_on_another_channel_closes_only_that_channel(broker, method):
    queue = await broker.queue(messages=[b"m"])
    connection = await broker.connection()
    receiving, other = await connection.channel(), await connection.channel()
    delivery = await receiving.get(queue)

    settle(other, method, delivery.delivery_tag)
    await expect_closed(other, code=406, text=f"unknown delivery tag {delivery.delivery_tag}",
                        requirement=f"a basic.{method} on a channel that never received the tag closes that channel")
    await expect_still_held(broker, receiving, queue, delivery, ready=0)
