"""QU-11: an auto-delete queue is deleted once its last consumer is gone (cancelled, or
its channel closed), not before; a queue that never had a consumer stays (basic.get
makes no consumer).

Source: the auto-delete field of queue.declare; ERRATA 5. The specification lets the
deletion come a little later than the last cancel: it is polled for, bounded."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, expect_exists, expect_gone, get_all, message,
                                                  own_queue, publish_all, rule)

RULE = rule("QU-11", "An auto-delete queue goes with its last consumer; one never consumed stays",
            strength=MUST, guide=SPEC, section="queue.declare.auto-delete",
            source="queue/declare/auto-delete; ERRATA 5",
            accepts="a deletion some time after the last consumer left (polled, bounded)")


@pytest.mark.case("last-consumer-cancelled")
async def test_the_queue_goes_when_its_last_consumer_is_cancelled(broker):
    connection = await broker.connection()
    channel = await connection.channel()
    queue = await own_queue(broker, channel, auto_delete=True)
    first, last = await channel.consume(queue), await channel.consume(queue)
    await channel.cancel(first)
    await expect_exists(connection, queue, "the auto-delete queue stays while it has a consumer left")
    await channel.cancel(last)
    await expect_gone(connection, queue, "the auto-delete queue goes once its last consumer is cancelled")


@pytest.mark.case("consumer-channel-closed")
async def test_the_queue_goes_when_its_consumers_channel_closes(broker):
    connection = await broker.connection()
    queue = await own_queue(broker, await connection.channel(), auto_delete=True)
    consuming = await connection.channel()
    await consuming.consume(queue)
    await consuming.close()
    await expect_gone(connection, queue, "the auto-delete queue goes once its only consumer's channel closed")


@pytest.mark.case("never-consumed")
async def test_a_queue_never_consumed_stays(broker):
    connection = await broker.connection()
    channel = await connection.channel()
    queue = await own_queue(broker, channel, auto_delete=True)
    await publish_all(channel, queue, [message(b"a"), message(b"b")])
    await get_all(channel, queue, 1)
    await expect_exists(connection, queue, "an auto-delete queue that never had a consumer stays after a basic.get")
    await get_all(channel, queue, 1)
