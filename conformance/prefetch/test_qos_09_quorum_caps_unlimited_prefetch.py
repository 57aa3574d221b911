"""QOS-09: quorum queues cap an unlimited prefetch (0): RabbitMQ sends a consumer at
most 2000 unacked deliveries from a quorum queue. The number reached is recorded; it is
RabbitMQ's own ceiling (its source), which no guide sentence states."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, INFO, ConfirmLedger, deliveries_until_quiet,
                                                  observe, rule)

RULE = rule("QOS-09", "Quorum queues cap an unlimited prefetch (2000; the number reached is recorded)",
            strength=INFO, guide=CONFIRMS, section="channel-qos-prefetch", requires=("confirms",))

RABBITMQ_CAP = 2000
READY = RABBITMQ_CAP + 200


@pytest.mark.parametrize("queue_type", ["quorum"])
async def test_unlimited_prefetch_on_a_quorum_queue_is_capped(broker, queue_type):
    queue = await broker.queue(queue_type)
    async with broker.channel() as publisher:
        # Confirmed, so every message is in the queue before the count starts.
        await publisher.confirm_select()
        ledger = ConfirmLedger()
        for n in range(READY):
            ledger.send(publisher, b"m%d" % n, routing_key=queue)
        await ledger.collect(publisher)
    ready = len(ledger.published) - len(ledger.outstanding)
    observe("messages confirmed into the queue", ready)

    async with broker.channel() as consumer:
        await consumer.qos(0)
        await consumer.consume(queue)
        unacked = await deliveries_until_quiet(consumer, expected=RABBITMQ_CAP)
    observe("unacked deliveries with prefetch 0", len(unacked))
    observe("capped", f"at {len(unacked)}" if len(unacked) < ready else f"no: all {len(unacked)} delivered")
