"""CON-09: when a queue is deleted, the broker tells each of its consumers with a
basic.cancel (RabbitMQ's consumer cancel notification, for clients that advertise
consumer_cancel_notify, as this one does).

Brokers have deadlocked on deleting a queue that has a consumer (garagemq 2020): every
wait here is bounded, and a delete that is never answered is reported as such; the rule
is listed among the wedges of conformance/brokers.toml, so it runs last, on a node of its own."""

from pamqp.commands import Basic, Queue

from amqp_conformance.fixtures.vocabulary import (CONSUMER_CANCEL, MUST, check, expect_reply, observe, rule, timeouts,
                                                  unsupported)

RULE = rule("CON-09", "Deleting a queue sends basic.cancel to its consumers",
            strength=MUST, guide=CONSUMER_CANCEL, section="overview")


async def test_deleting_a_queue_cancels_its_consumer(broker):
    queue = await broker.queue()
    consuming = await (await broker.connection()).channel()
    consumer = await consuming.consume(queue)
    deleting = await (await broker.connection()).channel()

    await expect_reply(deleting, Queue.Delete(queue=queue), Queue.DeleteOk,
                       "queue.delete of a queue with a consumer is answered (a silent broker may be deadlocked)")
    # The guide sets no deadline for the notification: wait a generous bound (it ends as
    # soon as the cancel comes).
    bound = timeouts.REPLY * 3
    notice = await consuming.watch(Basic.Cancel, within=bound)
    seen = (f"basic.cancel({notice.consumer_tag!r})" if isinstance(notice, Basic.Cancel)
            else str(notice) if notice else f"nothing within {bound:.1f} s")
    observe("consumer saw", seen)
    if notice is None and not consuming.connection.server_capabilities.get("consumer_cancel_notify"):
        unsupported("the broker does not advertise consumer_cancel_notify",
                    f"{seen} after queue.delete-ok; server capabilities: "
                    f"{consuming.connection.server_capabilities}")
    check(isinstance(notice, Basic.Cancel) and notice.consumer_tag == consumer,
          "the deleted queue's consumer receives basic.cancel with its tag",
          expected=f"basic.cancel({consumer!r})", actual=seen)
