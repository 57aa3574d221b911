"""RD-09: a requeued message is not tied to the consumer it was first delivered to.
When that consumer's channel closes, the message goes to another consumer of the queue,
flagged redelivered=true."""

import pytest

from amqp_conformance.fixtures.vocabulary import CONFIRMS, MUST, QUEUE_TYPES, check, rule

RULE = rule("RD-09", "A redelivered message may go to another consumer than the first",
            strength=MUST, guide=CONFIRMS, section="automatic-requeueing")


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_requeued_message_goes_to_the_remaining_consumer(broker, queue_type):
    queue = await broker.queue(queue_type, messages=[b"handed-over"])
    first_connection, second_connection = await broker.connection(), await broker.connection()
    first, second = await first_connection.channel(), await second_connection.channel()
    await first.consume(queue, "consumer-a")
    original = await first.expect_delivery()
    await second.consume(queue, "consumer-b")

    await first.close()

    handed_over = await second.expect_delivery()
    check(handed_over.body == original.body and handed_over.redelivered,
          "the requeued message is delivered to the other consumer, flagged redelivered",
          expected=f"{original.body!r} to consumer-b, redelivered=True",
          actual=f"{handed_over.body!r} to {handed_over.consumer_tag}, redelivered={handed_over.redelivered}")
