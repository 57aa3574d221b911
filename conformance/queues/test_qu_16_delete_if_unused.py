"""QU-16: queue.delete with if-unused on a queue that has a consumer is refused with
channel.close 406 PRECONDITION_FAILED, and leaves the queue, its consumer and its
messages as they were.

Source: queue/delete/if-unused [in-use] (on-failure precondition-failed)."""

from amqp_conformance.fixtures.vocabulary import (MUST, PRECONDITION_FAILED, SPEC, check, consume_and_hold,
                                                  expect_closed, expect_exists, message, observe, own_queue,
                                                  publish_all, rule, spec)

RULE = rule("QU-16", "delete if-unused of a queue with a consumer is refused (406), nothing changed",
            strength=MUST, guide=SPEC, section="queue.delete.if-unused", source="queue/delete/if-unused [in-use]")


async def test_if_unused_keeps_a_queue_with_a_consumer(broker):
    connection = await broker.connection()
    channel, consuming, deleting = (await connection.channel(), await connection.channel(),
                                    await connection.channel())
    queue = await own_queue(broker, channel)
    await publish_all(channel, queue, [message(b"first"), message(b"second")])
    _, first = await consume_and_hold(consuming, queue, prefetch=1)
    # Compared with the count before the delete: whether declare-ok counts the unacked
    # message too is QU-04's question, not this rule's.
    before = await expect_exists(connection, queue, "the queue is there before the delete")

    deleting.send(spec.Queue.Delete(queue=queue, if_unused=True))
    await expect_closed(deleting, code=PRECONDITION_FAILED, text="PRECONDITION_FAILED",
                        requirement="delete if-unused of a queue with a consumer is refused with channel.close 406")
    left = await expect_exists(connection, queue, "the refused delete left the queue in place")
    observe("consumer count after", left.consumer_count)
    check(left.message_count == before.message_count, "the queue and its messages are still there",
          expected=f"{before.message_count}, as before the delete", actual=left.message_count)
    consuming.ack(first.delivery_tag)
    second = await consuming.expect_delivery()
    check(second.body == b"second", "the consumer is still attached: an ack frees it for the next message",
          expected=b"second", actual=second.body)
