"""CON-29: consumer capacity, the management API's per-queue metric (consumer utilisation
before RabbitMQ 3.12): the share of time the queue could deliver to its consumers at once.
The guide: 0 % for a queue without consumers; 100 % for a queue with an online consumer and
no messages flowing. A SHOULD: the guide calls the metric a hint.

Below 100 % the guide reads as "the queue could deliver faster" (more consumers, faster
ones, a higher prefetch); it does not say that a full prefetch must show it, so the reading
while the only consumer's prefetch is full is recorded, not judged.

Readings of one classic queue, each polled until it shows the figure the guide names
(bounded: the metric is recomputed once a statistics period): no consumer; one consumer
(prefetch 1) on the empty queue; the same consumer holding a delivery unacked with more
messages ready. An API whose reading of the queue's statistics has no capacity metric at
all makes the rule unsupported at that reading."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CAPACITY_FIELDS, CONSUMERS, MANAGEMENT_BOUND_S, SHOULD, capacity,
                                                  lacks_capacity, non_strict, observe, rule, timeouts)

RULE = rule("CON-29", "Consumer capacity: 0 without consumers, about 100 % with an idle consumer",
            strength=SHOULD, guide=CONSUMERS, section="consumer-capacity",
            accepts=("any figure under a full prefetch (recorded: the guide's 'below 100 % means the queue could "
                     "deliver faster' does not say a full prefetch must show it); unsupported where the API has no "
                     "capacity metric; a difference at either end is non-strict (the guide calls the metric a hint)"))

# The backstop covers starting the node with the management API (the worker's first such
# case) as well as the bounded polls of the API.
pytestmark = pytest.mark.timeout(timeouts.NODE_BACKSTOP_S)
ABOUT_ALL = 0.95  # "about 100 %"
BODIES = [b"held", b"ready-1", b"ready-2"]


def seen(what: str, reading: dict) -> float | None:
    value = capacity(reading)
    shown_as = next((name for name in CAPACITY_FIELDS if name in reading), "not shown")
    observe(f"consumer capacity, {what}", f"{value} ({shown_as})")
    return value


def judge(what: str, reading: dict, expected: str, holds) -> None:
    value = seen(what, reading)
    if value is None or not holds(value):
        non_strict(f"consumer capacity {what}: expected {expected}, the management API showed {value} "
                   f"after {MANAGEMENT_BOUND_S:.0f} s of polling")


async def test_consumer_capacity_follows_the_consumers(management):
    broker, api = management.broker, management.api
    queue = await broker.queue()
    judge("with no consumer", await api.poll(queue, lambda r: capacity(r) == 0, lacks=lacks_capacity), "0",
          lambda v: v == 0)

    channel = await (await broker.connection()).channel()
    await channel.qos(prefetch_count=1)
    await channel.consume(queue, consumer_tag="only-consumer")
    judge("with an online consumer and no messages flowing",
          await api.poll(queue, lambda r: (capacity(r) or 0) >= ABOUT_ALL, lacks=lacks_capacity),
          f"about 1 (at least {ABOUT_ALL})", lambda v: v >= ABOUT_ALL)

    await broker.publish(queue, *BODIES)
    await channel.expect_delivery()  # held unacked: the prefetch of the only consumer is full
    seen("while the only consumer's prefetch is full (recorded)",
         await api.poll(queue, lambda r: (capacity(r) if capacity(r) is not None else 1) < ABOUT_ALL,
                        lacks=lacks_capacity))
