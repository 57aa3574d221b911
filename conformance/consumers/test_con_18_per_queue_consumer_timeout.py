"""CON-18: a per-queue consumer timeout, set by the `x-consumer-timeout` queue argument or
by a `consumer-timeout` policy, applies on its own: on a node whose global timeout is
much longer (an hour; amqp_conformance.fixtures.vocabulary.consumer_timeouts), an unacked delivery is acted on no
sooner than the queue's value and within value + check period, and the close names the
value used ("Timeout value used: T ms"; a reply text, so only non-strict).

Outcomes accepted as a set: channel.close 406 (RabbitMQ 3.12 to 4.2; 4.3 quorum queues
for a client without consumer_cancel_notify, naming -1 ms), basic.cancel with the channel
open (4.3 quorum queues, capable client). Unsupported: RabbitMQ before 3.12 (server
properties), 4.3 classic queues (the declare is refused, or no timeout within the wait)."""

import time

import pytest

from amqp_conformance.fixtures.vocabulary import (CONSUMER_TIMED_OUT, CONSUMERS, MUST, QUEUE_TYPES, Reply,
                                                  await_timeout_action, check, consumer_holding,
                                                  expect_closed, expect_open, non_strict, observe,
                                                  reports_value, rule)

RULE = rule("CON-18", "A per-queue consumer timeout (argument or policy) applies on its own",
            strength=MUST, guide=CONSUMERS, section="acknowledgement-timeout", timing_dependent=True,
            accepts=("a channel.close 406 or a basic.cancel with the channel open, as CON-10; a "
                     "close that does not name the value used is non-strict"))

# The action may be seen a little before T measured here: the clock starts when the
# delivery is read, after the broker stamped it.
EARLY_SLACK_S = 0.25


@pytest.mark.parametrize("way", ["argument", "policy"])
@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_the_queue_timeout_applies_on_its_own(consumer_timeout, queue_type):
    _, channel, held_since = await consumer_holding(consumer_timeout, queue_type, [b"held"])
    action = await await_timeout_action(consumer_timeout, channel, queue_type, held_since=held_since)
    elapsed = time.monotonic() - held_since
    check(elapsed >= consumer_timeout.timeout_ms / 1000 - EARLY_SLACK_S,
          "the broker waits the queue's own timeout before acting", expected=f">= {consumer_timeout.timeout_ms} ms",
          actual=f"{elapsed * 1000:.0f} ms")
    if isinstance(action, Reply):
        reply = await expect_closed(channel, code=406, text=CONSUMER_TIMED_OUT,
                                    requirement="the consumer's channel is closed with PRECONDITION_FAILED")
        if not reports_value(reply, consumer_timeout):
            non_strict(f"the close does not name the queue's timeout ({consumer_timeout.timeout_ms} ms): "
                       f"{reply.text!r}")
    else:
        observe("outcome seen", "basic.cancel, channel open (RabbitMQ 4.3 quorum queues)")
        await expect_open(channel, "after a timeout basic.cancel the channel stays open")
