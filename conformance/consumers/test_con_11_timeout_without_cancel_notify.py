"""CON-11: a client that does not advertise consumer_cancel_notify is never sent a
basic.cancel for a consumer timeout: the broker closes its channel with 406, in every
RabbitMQ version (4.3 sends basic.cancel only to clients that advertise it). Checked
through each way of setting the timeout (amqp_conformance.fixtures.vocabulary.consumer_timeouts)."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONSUMER_TIMED_OUT, CONSUMERS, MUST,
                                                  NO_CONSUMER_CANCEL_NOTIFY, QUEUE_TYPES, TIMEOUT_WAYS, Reply,
                                                  await_timeout_action, check, consumer_holding,
                                                  expect_closed, expect_open, rule)

RULE = rule("CON-11", "Without consumer_cancel_notify a consumer timeout closes the channel",
            strength=MUST, guide=CONSUMERS, section="acknowledgement-timeout", timing_dependent=True)


@pytest.mark.parametrize("way", TIMEOUT_WAYS)
@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_a_client_without_cancel_notify_gets_its_channel_closed(consumer_timeout, queue_type):
    _, channel, held_since = await consumer_holding(consumer_timeout, queue_type, [b"held"],
                                                    capabilities=NO_CONSUMER_CANCEL_NOTIFY)
    action = await await_timeout_action(consumer_timeout, channel, queue_type, held_since=held_since)
    check(isinstance(action, Reply), "a client that did not advertise consumer_cancel_notify gets no basic.cancel",
          expected="channel.close 406", actual=f"basic.cancel({action.consumer_tag!r})"
          if not isinstance(action, Reply) else action)
    await expect_closed(channel, code=406, text=CONSUMER_TIMED_OUT,
                        requirement="the timed-out consumer's channel is closed with PRECONDITION_FAILED")
    await expect_open(await channel.connection.channel(), "the connection stays open after the channel is closed")
