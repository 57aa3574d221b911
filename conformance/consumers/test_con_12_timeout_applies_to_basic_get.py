"""CON-12: the delivery-acknowledgement timeout also covers messages fetched with
basic.get and left unacked: the channel is closed with 406, the connection stays open
and the message is requeued with redelivered=true. Checked through each way of setting
the timeout (amqp_conformance.fixtures.vocabulary.consumer_timeouts)."""

import time

import pytest

from amqp_conformance.fixtures.vocabulary import (CONSUMER_TIMED_OUT, CONSUMERS, MUST, QUEUE_TYPES,
                                                  TIMEOUT_WAYS, Reply, await_timeout_action, check,
                                                  expect_closed, expect_open, rule)

RULE = rule("CON-12", "The consumer timeout also applies to unacked basic.get deliveries",
            strength=MUST, guide=CONSUMERS, section="acknowledgement-timeout", timing_dependent=True)


@pytest.mark.parametrize("way", TIMEOUT_WAYS)
@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_an_unacked_basic_get_times_out_too(consumer_timeout, queue_type):
    consumer_timeout.skip_if_seen_absent(queue_type)
    queue = await consumer_timeout.queue(queue_type, [b"fetched"])
    connection = await consumer_timeout.broker.connection()
    channel = await connection.channel()
    check(await channel.get(queue) is not None, "the message is there to fetch", expected="get-ok",
          actual="get-empty")

    action = await await_timeout_action(consumer_timeout, channel, queue_type, held_since=time.monotonic())
    check(isinstance(action, Reply), "an unacked basic.get delivery past the timeout closes the channel",
          expected="channel.close 406", actual=action)
    await expect_closed(channel, code=406, text=CONSUMER_TIMED_OUT,
                        requirement="the channel holding the fetched message is closed with PRECONDITION_FAILED")
    await expect_open(await connection.channel(), "the connection stays open after the channel is closed")
    returned = await consumer_timeout.broker.take_all(queue, expected=1)
    check([(d.body, d.redelivered) for d in returned] == [(b"fetched", True)],
          "the fetched message is requeued with redelivered=true", expected=[(b"fetched", True)],
          actual=[(d.body, d.redelivered) for d in returned])
