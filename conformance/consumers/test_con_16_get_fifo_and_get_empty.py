"""CON-16: basic.get takes messages from the head of the queue, in the order they were
published, and answers get-empty once the queue is empty."""

import pytest
from pamqp.commands import Basic

from amqp_conformance.fixtures.vocabulary import (CONSUMERS, MUST, QUEUE_TYPES, Delivery, check, expect_reply,
                                                  rule)

RULE = rule("CON-16", "basic.get fetches in FIFO order and answers get-empty on an empty queue",
            strength=MUST, guide=CONSUMERS, section="fetching")

BODIES = [b"first", b"second", b"third"]


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_get_fetches_in_order_then_answers_empty(broker, queue_type):
    queue = await broker.queue(queue_type, messages=BODIES)
    async with broker.channel() as channel:
        answers = [await expect_reply(channel, Basic.Get(queue=queue, no_ack=True), (Delivery, Basic.GetEmpty),
                                      "basic.get is answered with get-ok or get-empty")
                   for _ in range(len(BODIES) + 1)]

    seen = [answer.body if isinstance(answer, Delivery) else "get-empty" for answer in answers]
    check(seen == [*BODIES, "get-empty"], "basic.get returns the messages in publish order, then get-empty",
          expected=[*BODIES, "get-empty"], actual=seen)
