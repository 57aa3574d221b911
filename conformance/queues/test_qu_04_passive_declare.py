"""QU-04: a passive queue.declare asserts that the queue exists and changes nothing:
for an existing queue it answers declare-ok with the number of messages ready (not
counting deliveries awaiting acknowledgement), whatever durable, exclusive,
auto-delete or arguments the request carries; for a missing queue it closes the
channel with 404 NOT_FOUND.

Source: queue/declare/passive [passive] (on-failure not-found) and the message-count
domain. The consumer count is recorded, not judged: RabbitMQ counts every consumer,
where the specification speaks of active ones (D16)."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, NOT_FOUND, SPEC, check, consume_and_hold,
                                                  expect_closed, expect_reply, observe, own_queue, publish_all,
                                                  message, rule, spec)

RULE = rule("QU-04", "A passive declare reports an existing queue unchanged, and refuses a missing one (404)",
            strength=MUST, guide=SPEC, section="queue.declare.passive",
            source="queue/declare/passive [passive]",
            accepts="any consumer count (recorded: RabbitMQ counts every consumer, D16)")


@pytest.mark.case("existing")
async def test_passive_declare_reports_an_existing_queue_and_changes_nothing(broker):
    connection = await broker.connection()
    channel, consuming = await connection.channel(), await connection.channel()
    queue = await own_queue(broker, channel)
    await publish_all(channel, queue, [message(b"%d" % n) for n in range(3)])
    await consume_and_hold(consuming, queue, prefetch=1)

    # Flags and arguments unlike the queue's own: a passive declare must ignore them.
    reported = await expect_reply(channel, spec.Queue.Declare(queue=queue, passive=True, durable=False,
                                                              auto_delete=True, arguments={"x-max-length": 1}),
                                  spec.Queue.DeclareOk, "a passive declare of an existing queue is answered declare-ok")
    observe("consumer count", reported.consumer_count)
    check(reported.queue == queue and reported.message_count == 2,
          "declare-ok names the queue and counts its ready messages (3 published, 1 held unacked by a consumer)",
          expected=f"queue={queue!r}, message_count=2",
          actual=f"queue={reported.queue!r}, message_count={reported.message_count}")
    # Unchanged: the queue's own properties still match (a non-passive declare with them is
    # accepted), and its messages are all still there.
    again = await expect_reply(channel, spec.Queue.Declare(queue=queue, durable=True,
                                                           arguments=broker.queue_arguments("classic")),
                               spec.Queue.DeclareOk,
                               "after the passive declare, the queue still has its own properties")
    check(again.message_count == 2, "the passive declare took no message away",
          expected="2 ready", actual=f"{again.message_count} ready")


@pytest.mark.case("missing")
async def test_passive_declare_of_a_missing_queue_is_refused(broker):
    channel = await (await broker.connection()).channel()
    missing = broker.adopt(broker.name("missing"))  # deleted afterwards, should a broker create it
    channel.send(spec.Queue.Declare(queue=missing, passive=True))
    await expect_closed(channel, code=NOT_FOUND, text="NOT_FOUND",
                        requirement="a passive declare of a missing queue closes the channel with 404")
    checking = await channel.connection.channel()
    checking.send(spec.Queue.Declare(queue=missing, passive=True))
    await expect_closed(checking, code=NOT_FOUND,
                        requirement="the refused passive declare did not create the queue")
