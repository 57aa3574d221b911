"""CON-26: single active consumer: while the active consumer's prefetch is full, the
waiting consumers get nothing (the guide: deliveries go to the active consumer even when
it is busy; the others are ignored); the first consumer registered is the active one.

The guide says "the very first registered consumer becomes the single active consumer"
and, for classic queues, that the initial choice is random "even if consumer priorities
are in use": with no priorities here, the first-registered claim is judged as MUST on
both queue types (CON-20 keeps the connection-loss case). Two consumers on one connection,
prefetch 2 each, registered in order; five messages."""

import pytest

from fixtures import (CONSUMERS, MUST, QUEUE_TYPES, check, deliveries_across, require_single_active_consumer, rule,
                      single_active_consumers, timeouts, who_got)

RULE = rule("CON-26", "Single active consumer: the waiting consumer gets nothing while the active one is full",
            strength=MUST, guide=CONSUMERS, section="single-active-consumer")

PREFETCH = 2
BODIES = [b"m1", b"m2", b"m3", b"m4", b"m5"]


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_waiting_consumer_gets_nothing_while_the_active_one_is_full(broker, queue_type):
    await require_single_active_consumer(broker, queue_type)
    queue, channels, tags = await single_active_consumers(broker, queue_type, prefetch=PREFETCH)
    first = channels[0]
    await broker.publish(queue, *BODIES)

    filled = await deliveries_across(channels, PREFETCH)
    check([(ch, d.body) for ch, d in filled] == [(first, body) for body in BODIES[:PREFETCH]],
          "the first registered consumer is the active one and fills its prefetch",
          expected={tags[0]: BODIES[:PREFETCH]}, actual=who_got(filled) or "nothing")
    spilled = await deliveries_across(channels, 1, within=timeouts.NEGATIVE_WINDOW)
    check(not spilled, "while the active consumer's prefetch is full, the waiting consumer gets nothing",
          expected=f"no delivery within {timeouts.NEGATIVE_WINDOW:.1f} s", actual=who_got(spilled))

    first.ack(filled[-1][1].delivery_tag, multiple=True)
    rest = await deliveries_across(channels, PREFETCH)
    check(all(ch is first for ch, _ in rest) and [d.body for _, d in rest] == BODIES[PREFETCH:2 * PREFETCH],
          "once it acks, the active consumer gets the next messages, and still only it",
          expected={tags[0]: BODIES[PREFETCH:2 * PREFETCH]}, actual=who_got(rest) or "nothing")
