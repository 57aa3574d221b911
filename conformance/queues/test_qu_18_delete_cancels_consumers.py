"""QU-18: queue.delete deletes the queue with its messages and answers delete-ok with
the number of messages it dropped; its consumers are cancelled (none of them is left
on the name), and the broker goes on serving every other connection.

Source: the queue.delete method and its delete-ok (message-count). The count may or may
not include the one delivery a consumer holds unacknowledged (the specification says
"messages deleted"): either passes, the one seen is recorded. Some brokers deadlock on
deleting a queue that has a consumer (garagemq): every wait is bounded, and the rule is
listed among the wedges of conformance/brokers.toml (a node of its own, run last)."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, check, consume_and_hold, declare, expect_open,
                                                  expect_reply, get_all, message, observe, own_queue, publish_all,
                                                  rule, spec)

RULE = rule("QU-18", "queue.delete reports what it dropped, cancels the consumers, and the broker serves on",
            strength=MUST, guide=SPEC, section="queue.delete", source="queue/delete",
            accepts="a delete-ok count of the ready messages, or of those and the one held unacknowledged")

READY = 3


async def test_delete_drops_cancels_and_the_broker_serves_on(broker):
    consumer_connection, deleting_connection = await broker.connection(), await broker.connection()
    deleting = await deleting_connection.channel()
    queue = await own_queue(broker, deleting)
    await publish_all(deleting, queue, [message(b"%d" % n) for n in range(READY + 1)])
    await consume_and_hold(await consumer_connection.channel(), queue, prefetch=1)

    deleted = await expect_reply(deleting, spec.Queue.Delete(queue=queue), spec.Queue.DeleteOk,
                                 "queue.delete of a queue with a consumer is answered delete-ok (a silent broker "
                                 "may be deadlocked)")
    observe("delete-ok message count", deleted.message_count)
    check(deleted.message_count in (READY, READY + 1), "delete-ok counts the messages the queue dropped",
          expected=f"{READY} (ready) or {READY + 1} (with the one held unacked)", actual=deleted.message_count)
    # The name is free again and the old consumer is not on it: a queue declared anew under
    # it has no consumer, and a message put in it stays for basic.get.
    again = await declare(deleting, queue, durable=True, arguments=broker.queue_arguments("classic"))
    check(again.consumer_count == 0 and again.message_count == 0,
          "a queue declared anew under the deleted one's name starts empty, without the old consumer",
          expected="0 messages, 0 consumers",
          actual=f"{again.message_count} messages, {again.consumer_count} consumers")
    await publish_all(deleting, queue, [message(b"for the new queue")])
    await get_all(deleting, queue, 1)
    await expect_open(await consumer_connection.channel(), "the consumer's connection is still served after the delete")
    fresh = await (await broker.connection()).channel()
    await expect_open(fresh, "a new connection is served after the delete")
