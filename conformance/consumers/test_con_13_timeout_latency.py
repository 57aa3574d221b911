"""CON-13 (INFO): how long after the deadline the consumer timeout acts. RabbitMQ
checks it on a periodic tick (one minute by default), so the action comes up to one
tick after the deadline; the managed node runs a 500 ms tick. The report records the
latency from the deadline (delivery + timeout) to the close or basic.cancel, for each
way of setting the timeout (amqp_conformance.fixtures.vocabulary.consumer_timeouts)."""

import time

import pytest

from amqp_conformance.fixtures.vocabulary import (CONSUMERS, INFO, QUEUE_TYPES, TIMEOUT_WAYS, Reply,
                                                  await_timeout_action, consumer_holding, observe, rule)

RULE = rule("CON-13", "Latency from the consumer-timeout deadline to the close",
            strength=INFO, guide=CONSUMERS, section="acknowledgement-timeout", timing_dependent=True)


@pytest.mark.parametrize("way", TIMEOUT_WAYS)
@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_latency_from_deadline_to_timeout_action(consumer_timeout, queue_type):
    _, channel, delivered_at = await consumer_holding(consumer_timeout, queue_type, [b"held"])

    action = await await_timeout_action(consumer_timeout, channel, queue_type, held_since=delivered_at, judged=False)
    if action is not None:
        latency_ms = (time.monotonic() - delivered_at) * 1000 - consumer_timeout.timeout_ms
        observe("consumer timeout", f"{consumer_timeout.timeout_ms} ms")
        observe("deadline to action", f"{latency_ms:.0f} ms")
        observe("action", str(action) if isinstance(action, Reply) else "basic.cancel")
