"""ACK-05: a delivery must be acknowledged on the channel that received it. Acking it
on another channel closes *that* channel with 406; the receiving channel stays open and
the message stays unacked there.

The second channel is fresh: it has no tag 1 of its own, which would silently ack the
wrong message."""

from fixtures import CONFIRMS, MUST, check, expect_closed, expect_open, rule

RULE = rule("ACK-05", "Acking on another channel closes that channel; the receiving channel is untouched",
            strength=MUST, guide=CONFIRMS, section="consumer-acks-delivery-tags")


async def test_ack_on_another_channel_closes_only_that_channel(broker):
    queue = await broker.queue(messages=[b"m"])
    connection = await broker.connection()
    receiving, other = await connection.channel(), await connection.channel()
    delivery = await receiving.get(queue)

    other.ack(delivery.delivery_tag)
    await expect_closed(other, code=406, text=f"unknown delivery tag {delivery.delivery_tag}",
                        requirement="an ack on a channel that never received the tag closes that channel")

    await expect_open(receiving, "the channel that received the delivery stays open")
    check(await broker.ready_count(queue) == 0, "the message is neither requeued nor lost",
          expected="0 ready (still unacked on its channel)", actual=f"{await broker.ready_count(queue)} ready")
    receiving.ack(delivery.delivery_tag)
    await expect_open(receiving, "the delivery is still outstanding on its own channel, so acking it there "
                                 "is not an error")
