"""CON-10: a consumer that does not acknowledge within the delivery-acknowledgement
timeout loses its channel (406 PRECONDITION_FAILED), its unacked deliveries are requeued
with redelivered=true, and the connection stays open.

Checked through each way of setting the timeout (global, queue argument, policy), the
other two absent or much longer (amqp_conformance.fixtures.vocabulary.consumer_timeouts). Outcomes accepted as a
set, by version (the report says which one was seen):
  - RabbitMQ <= 4.2, any queue type: channel.close 406 "delivery acknowledgement ... timed out"
  - RabbitMQ 4.3 quorum queues, client advertising consumer_cancel_notify: basic.cancel,
    the channel stays open, the messages are returned to the queue
  - RabbitMQ 4.3 classic queues: no consumer timeout (unsupported)"""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONSUMER_TIMED_OUT, CONSUMERS, MUST, QUEUE_TYPES,
                                                  TIMEOUT_WAYS, Reply, await_timeout_action, check,
                                                  consumer_holding, expect_closed, expect_open, observe, rule)

RULE = rule("CON-10", "An unacked delivery past the consumer timeout closes the channel and is requeued",
            strength=MUST, guide=CONSUMERS, section="acknowledgement-timeout", timing_dependent=True,
            accepts=("a channel.close 406 (RabbitMQ up to 4.2) or a basic.cancel with the channel "
                     "open (4.3 quorum queues), the deliveries requeued either way; the text is "
                     "non-strict"))

BODIES = [b"held-1", b"held-2"]


@pytest.mark.parametrize("way", TIMEOUT_WAYS)
@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_consumer_past_the_timeout_loses_its_channel_and_deliveries_return(consumer_timeout, queue_type):
    queue, channel, held_since = await consumer_holding(consumer_timeout, queue_type, BODIES)
    action = await await_timeout_action(consumer_timeout, channel, queue_type, held_since=held_since)
    if isinstance(action, Reply):
        observe("outcome seen", "channel closed")
        await expect_closed(channel, code=406, text=CONSUMER_TIMED_OUT,
                            requirement="the consumer's channel is closed with PRECONDITION_FAILED")
        await expect_open(await channel.connection.channel(), "the connection stays open after the channel is closed")
    else:
        observe("outcome seen", "basic.cancel, channel open (RabbitMQ 4.3 quorum queues)")
        await expect_open(channel, "after a timeout basic.cancel the channel stays open")

    returned = await consumer_timeout.broker.take_all(queue, expected=len(BODIES))
    check(sorted(d.body for d in returned) == sorted(BODIES), "the unacked deliveries are requeued",
          expected=sorted(BODIES), actual=sorted(d.body for d in returned))
    check(all(d.redelivered for d in returned), "requeued deliveries carry redelivered=true",
          expected="redelivered=true", actual={d.body: d.redelivered for d in returned})
