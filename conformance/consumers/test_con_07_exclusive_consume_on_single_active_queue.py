"""CON-07: an exclusive consumer on a single-active-consumer queue is an error: the
broker refuses the basic.consume. The guide says it is an error, not how: any close of
the channel or its connection passes; RabbitMQ's channel.close 403 ACCESS_REFUSED is the
SHOULD.

Quorum queues ignore the exclusive flag (as in CON-05); both outcomes are accepted
there and the report says which one was seen."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONSUMERS, MUST, QUEUE_TYPES, SINGLE_ACTIVE,
                                                  expect_exclusive_refusal, expect_refused,
                                                  require_single_active_consumer, rule)

RULE = rule("CON-07", "An exclusive consume on a single-active-consumer queue is refused",
            strength=MUST, guide=CONSUMERS, section="single-active-consumer",
            accepts=("any close of the channel or the connection (another code or scope than RabbitMQ's "
                     "channel.close 403 is non-strict); on quorum queues a consume-ok too"))


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_exclusive_consume_on_a_single_active_consumer_queue_is_refused(broker, queue_type):
    await require_single_active_consumer(broker, queue_type)
    queue = await broker.queue(queue_type, arguments=SINGLE_ACTIVE)
    async with broker.channel() as channel:
        await expect_exclusive_refusal(channel, queue, queue_type, exclusive=True,
                                       requirement="an exclusive consumer is refused on a single-active-consumer queue",
                                       refusal=expect_refused)
