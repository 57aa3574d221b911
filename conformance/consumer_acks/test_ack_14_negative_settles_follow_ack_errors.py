"""ACK-14: nack and reject follow the error rules of ack ("positive or negative", CONFIRMS).
A nack or reject of a tag already settled by another method, or of a tag delivered on
another channel that holds deliveries of its own, closes the channel that sent it with
406; the channel that received the delivery is untouched.

(Settling twice with one method is ACK-04; settling on a fresh channel is ACK-05.)"""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, expect_closed, expect_settled_tag_refused,
                                                  expect_still_held, rule, settle)

RULE = rule("ACK-14", "nack and reject of a settled tag, or of another channel's tag, close the sending channel",
            strength=MUST, guide=CONFIRMS, section="consumer-acks-double-acking")

# (how the tag was settled first, the negative settle that follows)
SETTLED_THEN = [("ack", "nack"), ("ack", "reject"), ("nack", "reject"), ("reject", "nack")]


@pytest.mark.parametrize("first, then", SETTLED_THEN, ids=[f"{a}-then-{b}" for a, b in SETTLED_THEN])
@pytest.mark.case("settled-tag")
async def test_a_negative_settle_of_a_settled_tag_closes_the_channel(broker, first, then):
    await expect_settled_tag_refused(broker, first, then)


@pytest.mark.parametrize("method", ["nack", "reject"])
@pytest.mark.case("other-channel")
async def test_a_negative_settle_of_another_channels_tag_closes_only_the_sender(broker, method):
    queue, own_queue = await broker.queue(messages=[b"m1", b"m2"]), await broker.queue(messages=[b"own"])
    connection = await broker.connection()
    receiving, other = await connection.channel(), await connection.channel()
    _, delivery = await receiving.get(queue), await receiving.get(queue)  # tags 1 and 2 there
    await other.get(own_queue)  # tag 1 here: the sender has deliveries, but not tag 2

    settle(other, method, delivery.delivery_tag)
    await expect_closed(other, code=406, text=f"unknown delivery tag {delivery.delivery_tag}",
                        requirement=f"basic.{method} of a tag delivered only on another channel closes the sender")
    await expect_still_held(broker, receiving, queue, delivery, ready=0)
