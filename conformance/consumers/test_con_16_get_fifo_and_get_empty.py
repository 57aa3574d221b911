"""CON-16: basic.get takes messages from the head of the queue, in the order they were
published, and answers get-empty once the queue is empty."""

import pytest

from fixtures import CONSUMERS, MUST, QUEUE_TYPES, check, rule

RULE = rule("CON-16", "basic.get fetches in FIFO order and answers get-empty on an empty queue",
            strength=MUST, guide=CONSUMERS, section="fetching-messages-on-demand-polling")

BODIES = [b"first", b"second", b"third"]


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_get_fetches_in_order_then_answers_empty(broker, queue_type):
    queue = await broker.queue(queue_type, messages=BODIES)
    async with broker.channel() as channel:
        fetched = [await channel.get(queue, no_ack=True) for _ in BODIES]
        after_the_last = await channel.get(queue, no_ack=True)

    bodies = [d.body if d else "get-empty" for d in fetched]
    check(bodies == BODIES, "basic.get returns the messages in publish order", expected=BODIES, actual=bodies)
    check(after_the_last is None, "basic.get on the emptied queue answers get-empty", expected="get-empty",
          actual=after_the_last)
