"""CON-14 (SHOULD): consumers of equal priority on one queue get its messages in turn,
round-robin: with two consumers, deliveries alternate between them."""

import pytest

from fixtures import CONSUMERS, QUEUE_TYPES, SHOULD, check, observe, receive, rule

RULE = rule("CON-14", "Consumers of equal priority get deliveries round-robin",
            strength=SHOULD, guide=CONSUMERS, section="priority")

BODIES = [b"m1", b"m2", b"m3", b"m4"]


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_equal_consumers_receive_in_turn(broker, queue_type):
    queue = await broker.queue(queue_type)
    async with broker.channel() as channel:
        for tag in ("consumer-a", "consumer-b"):
            await channel.consume(queue, consumer_tag=tag, no_ack=True)
        await broker.publish(queue, *BODIES)
        received = await receive(channel, len(BODIES))

    order = [(d.consumer_tag, d.body) for d in received]
    observe("delivery order", order)
    alternating = all(order[i][0] != order[i + 1][0] for i in range(len(order) - 1))
    check(alternating and [body for _, body in order] == BODIES, "deliveries alternate between the consumers",
          expected="consumer-a, consumer-b, consumer-a, consumer-b (or starting with b), in publish order",
          actual=order)
