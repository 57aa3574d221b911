"""RQ-08: basic.nack with multiple=true and requeue=false dead-letters every delivery it
covers when the queue has a dead-letter exchange (x-death reason "rejected"), and none
above its tag; with requeue=true it dead-letters nothing and requeues them all.

RabbitMQ's own test expects the dead-lettered messages in delivery order and the reason
"rejected"; neither is in the rule's wording, so a difference there is non-strict. A
broker that dead-letters nothing at all (the probe: an expired message) is unsupported."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, QUEUE_TYPES, check, dead_letter_to, death_reasons,
                                                  expect_dead_lettered, expect_nothing_returns, expect_open,
                                                  get_unacked, non_strict, observe, require_dead_lettering, rule,
                                                  timeouts)

RULE = rule("RQ-08", "nack(multiple, requeue=false) dead-letters every message it covers; requeue=true none",
            strength=MUST, guide=CONFIRMS, section="consumer-nacks-requeue")

COVERED = [b"m1", b"m2", b"m3"]
ABOVE = b"m4-above"  # delivered after the nacked tag: not covered, stays unacked


async def nack_covered(broker, queue_type, *, requeue):
    dead_letters = await broker.queue()
    queue = await broker.queue(queue_type, messages=[*COVERED, ABOVE], arguments=dead_letter_to(dead_letters))
    channel = await (await broker.connection()).channel()
    deliveries = await get_unacked(channel, queue, len(COVERED) + 1)
    channel.nack(deliveries[len(COVERED) - 1].delivery_tag, multiple=True, requeue=requeue)
    await expect_open(channel, f"nack(multiple, requeue={str(requeue).lower()}) of outstanding tags is not an error")
    return queue, dead_letters


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
@pytest.mark.case("without-requeue")
async def test_nack_multiple_without_requeue_dead_letters_every_covered_message(broker, queue_type):
    queue, dead_letters = await nack_covered(broker, queue_type, requeue=False)
    dead = await expect_dead_lettered(broker, queue, dead_letters, COVERED,
                                      requirement="every delivery the nack covers is dead-lettered, none above it")
    order, reasons = [d.body for d in dead], sorted({r for d in dead for r in death_reasons(d)})
    observe("dead-letter order", b" ".join(order).decode())
    if order != COVERED:
        non_strict(f"dead-lettered in another order than delivered: {order} (RabbitMQ: {COVERED})")
    if reasons != ["rejected"]:
        non_strict(f"x-death reasons {reasons}; RabbitMQ gives 'rejected' for a nack")


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
@pytest.mark.case("with-requeue")
async def test_nack_multiple_with_requeue_dead_letters_nothing(broker, queue_type):
    queue, dead_letters = await nack_covered(broker, queue_type, requeue=True)
    # Nothing dead-lettered proves something only on a broker that dead-letters at all.
    await require_dead_lettering(broker, await broker.queue())
    back = await broker.wait_ready_count(queue, len(COVERED), within=timeouts.REPLY)
    check(back == len(COVERED), "nack(multiple, requeue=true) puts every covered delivery back in the queue",
          expected=f"{len(COVERED)} ready", actual=f"{back} ready")
    await expect_nothing_returns(broker, dead_letters, "nack with requeue=true never dead-letters")
