"""CON-26: single active consumer: while the active consumer's prefetch is full, the
waiting consumers get nothing (the guide: deliveries go to the active consumer even when
it is busy; the others are ignored); the first consumer registered is the active one.

The guide says "the very first registered consumer becomes the single active consumer"
and, for classic queues, that the initial choice is random "even if consumer priorities
are in use": with no priorities here, the first-registered claim is judged as MUST on
both queue types (CON-20 keeps the connection-loss case). Two consumers on one connection,
prefetch 2 each, registered in order; five messages."""

import pytest

from fixtures import (CONSUMERS, MUST, QUEUE_TYPES, expect_only_the_first_consumer_fed,
                      require_single_active_consumer, rule, single_active_consumers)

RULE = rule("CON-26", "Single active consumer: the waiting consumer gets nothing while the active one is full",
            strength=MUST, guide=CONSUMERS, section="single-active-consumer")

PREFETCH = 2
BODIES = [b"m1", b"m2", b"m3", b"m4", b"m5"]


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_waiting_consumer_gets_nothing_while_the_active_one_is_full(broker, queue_type):
    await require_single_active_consumer(broker, queue_type)
    queue, channels, tags = await single_active_consumers(broker, queue_type, prefetch=PREFETCH)
    await broker.publish(queue, *BODIES)
    await expect_only_the_first_consumer_fed(channels, tags, BODIES, PREFETCH)
