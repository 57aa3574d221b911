"""ACK-11: a delivery made in automatic-acknowledgement mode is settled as it is sent;
the client has nothing to acknowledge, and acking its tag is an unknown tag (406)."""

import pytest

from amqp_conformance.fixtures.vocabulary import CONFIRMS, MUST, expect_closed, rule

RULE = rule("ACK-11", "A delivery made in automatic-ack mode is settled on send; acking it is an unknown tag",
            strength=MUST, guide=CONFIRMS, section="acknowledgement-modes")


async def pulled_without_ack(channel, queue):
    return await channel.get(queue, no_ack=True)


async def pushed_without_ack(channel, queue):
    await channel.consume(queue, no_ack=True)
    return await channel.expect_delivery()


@pytest.mark.parametrize("deliver", [pulled_without_ack, pushed_without_ack], ids=["basic.get", "basic.consume"])
async def test_acking_an_auto_acked_delivery_closes_the_channel(broker, deliver):
    queue = await broker.queue(messages=[b"fire-and-forget"])
    async with broker.channel() as channel:
        delivery = await deliver(channel, queue)
        channel.ack(delivery.delivery_tag)
        await expect_closed(channel, code=406, text=f"unknown delivery tag {delivery.delivery_tag}",
                            requirement="acking a delivery made with no_ack=true closes the channel")
