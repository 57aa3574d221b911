"""QU-19: a client that cancels a consumer whose queue was deleted meanwhile gets
cancel-ok, and its channel stays open: the broker does not treat that consumer tag as
unknown.

Source: basic/cancel [01]. The consumer's connection does not advertise
consumer_cancel_notify, as a plain AMQP 0-9-1 client would not: it never hears of the
deletion and cancels as usual. Deleting a queue with a consumer deadlocks some brokers
(garagemq): every wait is bounded and the rule is among the wedges of
conformance/brokers.toml (a node of its own, run last)."""

from amqp_conformance.fixtures.vocabulary import (MUST, NO_CONSUMER_CANCEL_NOTIFY, SPEC, expect_open, expect_reply,
                                                  own_queue, rule, spec)

RULE = rule("QU-19", "Cancelling a consumer of a deleted queue is answered cancel-ok",
            strength=MUST, guide=SPEC, section="basic.cancel", source="basic/cancel [01]")


async def test_cancel_after_the_queue_was_deleted(broker):
    consuming = await (await broker.connection(capabilities=NO_CONSUMER_CANCEL_NOTIFY)).channel()
    deleting = await (await broker.connection()).channel()
    queue = await own_queue(broker, deleting)
    consumer = await consuming.consume(queue)
    await expect_reply(deleting, spec.Queue.Delete(queue=queue), spec.Queue.DeleteOk,
                       "queue.delete of a queue with a consumer is answered delete-ok (a silent broker may be "
                       "deadlocked)")
    await expect_reply(consuming, spec.Basic.Cancel(consumer_tag=consumer), spec.Basic.CancelOk,
                       "basic.cancel of the deleted queue's consumer is answered cancel-ok")
    await expect_open(consuming, "the channel stays open after the cancel")
