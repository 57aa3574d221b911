"""CON-26: single active consumer: while the active consumer's prefetch is full, the
waiting consumers get nothing (the guide: deliveries go to the active consumer even when
it is busy; the others are ignored), and after it acks the next messages still go only to
it; the first consumer registered is the active one where the guide says so.

"The first registered consumer becomes the single active consumer" is the guide's general
statement, a MUST on quorum queues; its "initial SAC selection" picks the first active
consumer at random on classic queues, even with consumer priorities, so there another
active consumer is non-strict (the step CON-20 shares). The prefetch checks judge whichever
consumer is active. Two consumers on one connection, prefetch 2 each, registered in order;
five messages."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONSUMERS, MUST, QUEUE_TYPES,
                                                  expect_only_the_active_consumer_fed,
                                                  require_single_active_consumer, rule,
                                                  single_active_consumers)

RULE = rule("CON-26", "Single active consumer: the waiting consumer gets nothing while the active one is full",
            strength=MUST, guide=CONSUMERS, section="single-active-consumer")

PREFETCH = 2
BODIES = [b"m1", b"m2", b"m3", b"m4", b"m5"]


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_waiting_consumer_gets_nothing_while_the_active_one_is_full(broker, queue_type):
    await require_single_active_consumer(broker, queue_type)
    queue, channels, tags = await single_active_consumers(broker, queue_type, prefetch=PREFETCH)
    await broker.publish(queue, *BODIES)
    await expect_only_the_active_consumer_fed(queue_type, channels, tags, BODIES, PREFETCH)
