"""ACK-04: acknowledging the same delivery tag twice closes the channel with 406.

The 4.0 translation of the guide says a double ack "does not cause a protocol error";
the 4.1 guide says the channel is closed with PRECONDITION_FAILED "unknown delivery tag",
and RabbitMQ 3.10.8 and 4.0.5 do close it. This rule follows the 4.1 guide."""

from fixtures import CONFIRMS, MUST, expect_closed, rule

RULE = rule("ACK-04", "Acking the same delivery tag twice closes the channel",
            strength=MUST, guide=CONFIRMS, section="consumer-acks-double-acking")


async def test_double_ack_closes_the_channel(broker):
    queue = await broker.queue(messages=[b"m"])
    async with broker.channel() as channel:
        delivery = await channel.get(queue)
        channel.ack(delivery.delivery_tag)
        channel.ack(delivery.delivery_tag)
        await expect_closed(channel, code=406, text=f"unknown delivery tag {delivery.delivery_tag}",
                            requirement="a second ack of the same tag closes the channel")
