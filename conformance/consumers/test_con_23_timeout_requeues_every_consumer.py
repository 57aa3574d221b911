"""CON-23: a consumer timeout that closes a channel requeues the unacked deliveries of
every consumer on that channel, not only the late one's (CONSUMERS guide: "all the
following deliveries on that channel, from all consumers, are then requeued").

Two consumers share a channel, each on a queue of its own. The late one holds the
channel's oldest delivery (RabbitMQ <= 4.2 checks only the oldest pending ack) on a
queue timed out by the case's way; the other's queue has no timeout of its own, so only
the late consumer's timeout can fire. The client does not advertise
consumer_cancel_notify, so RabbitMQ 4.3 closes the channel too instead of cancelling
the late consumer alone."""

import time

import pytest

from amqp_conformance.fixtures.vocabulary import (CONSUMER_TIMED_OUT, CONSUMERS, MUST,
                                                  NO_CONSUMER_CANCEL_NOTIFY, QUEUE_TYPES, TIMEOUT_WAYS,
                                                  await_timeout_action, check, expect_closed, rule)

RULE = rule("CON-23", "A consumer timeout requeues the unacked deliveries of every consumer on the channel",
            strength=MUST, guide=CONSUMERS, section="acknowledgement-timeout", timing_dependent=True)


@pytest.mark.parametrize("way", TIMEOUT_WAYS)
@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_a_timeout_requeues_every_consumers_deliveries(consumer_timeout, queue_type):
    consumer_timeout.skip_if_seen_absent(queue_type)
    broker = consumer_timeout.broker
    late_queue = await consumer_timeout.queue(queue_type, [b"late"])
    other_queue = await broker.queue(queue_type, messages=[b"other"])
    channel = await (await broker.connection(capabilities=NO_CONSUMER_CANCEL_NOTIFY)).channel()
    await channel.consume(late_queue, consumer_tag="late")
    await channel.expect_delivery()
    held_since = time.monotonic()
    await channel.consume(other_queue, consumer_tag="other")
    await channel.expect_delivery()

    await await_timeout_action(consumer_timeout, channel, queue_type, held_since=held_since)
    await expect_closed(channel, code=406, text=CONSUMER_TIMED_OUT,
                        requirement="the late consumer's channel is closed with PRECONDITION_FAILED")
    returned = {queue: [(d.body, d.redelivered) for d in await broker.take_all(queue, expected=1)]
                for queue in (late_queue, other_queue)}
    check(list(returned.values()) == [[(b"late", True)], [(b"other", True)]],
          "both consumers' unacked deliveries are requeued with redelivered=true",
          expected={"late consumer": [(b"late", True)], "other consumer": [(b"other", True)]},
          actual={"late consumer": returned[late_queue], "other consumer": returned[other_queue]})
