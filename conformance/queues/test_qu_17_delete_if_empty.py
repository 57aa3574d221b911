"""QU-17: queue.delete with if-empty on a queue that holds messages is refused with
channel.close 406 PRECONDITION_FAILED, and the messages stay.

Source: queue/delete/if-empty [not-empty] (on-failure precondition-failed)."""

from amqp_conformance.fixtures.vocabulary import (MUST, PRECONDITION_FAILED, SPEC, check, expect_closed,
                                                  expect_exists, message, own_queue, publish_all, rule, spec)

RULE = rule("QU-17", "delete if-empty of a queue holding messages is refused (406), messages kept",
            strength=MUST, guide=SPEC, section="queue.delete.if-empty", source="queue/delete/if-empty [not-empty]")


async def test_if_empty_keeps_a_queue_with_messages(broker):
    connection = await broker.connection()
    channel, deleting = await connection.channel(), await connection.channel()
    queue = await own_queue(broker, channel)
    await publish_all(channel, queue, [message(b"a"), message(b"b")])
    deleting.send(spec.Queue.Delete(queue=queue, if_empty=True))
    await expect_closed(deleting, code=PRECONDITION_FAILED, text="PRECONDITION_FAILED",
                        requirement="delete if-empty of a queue holding messages is refused with channel.close 406")
    left = await expect_exists(connection, queue, "the refused delete left the queue in place")
    check(left.message_count == 2, "the queue and its messages are still there",
          expected="2 ready", actual=f"{left.message_count} ready")
