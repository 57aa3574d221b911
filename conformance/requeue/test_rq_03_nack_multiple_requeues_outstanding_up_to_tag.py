"""RQ-03: basic.nack with multiple=true and requeue=true requeues every delivery still
outstanding up to and including its tag: not one acked before, not one above the tag."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, QUEUE_TYPES, expect_open, expect_returned,
                                                  get_unacked, rule)

RULE = rule("RQ-03", "nack multiple=true requeues every outstanding tag up to N, not ones already acked",
            strength=MUST, guide=CONFIRMS, section="consumer-nacks-requeue")

BODIES = [b"m1", b"m2-acked", b"m3", b"m4", b"m5-above"]


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_nack_multiple_requeues_the_outstanding_tags_up_to_n(broker, queue_type):
    queue = await broker.queue(queue_type, messages=BODIES)
    async with broker.channel() as channel:
        deliveries = await get_unacked(channel, queue, len(BODIES))
        channel.ack(deliveries[1].delivery_tag)
        channel.nack(deliveries[3].delivery_tag, multiple=True, requeue=True)
        await expect_open(channel, "nack(multiple) of an outstanding tag is not an error")
        # m5 is still unacked on the open channel, so it must not be in the queue yet.
        await expect_returned(broker, queue, [b"m1", b"m3", b"m4"], redelivered=None,
                              requirement="nack(tag 4, multiple, requeue) returns tags 1, 3 and 4 only")
