"""RD-10: basic.recover(requeue=true) requeues every unacked delivery of the channel, not
only those of its live consumers: the deliveries of a consumer already cancelled on the
channel, and those fetched with basic.get, come back too, flagged redelivered=true.

Nobody consumes on the channel after the recover (the consumer is gone; basic.get has
none), so the messages are judged where they go: back in the queue. A broker without
basic.recover is unsupported (the probe's reply is the evidence)."""

import pytest

from amqp_conformance.fixtures.vocabulary import CONFIRMS, MUST, QUEUE_TYPES, expect_returned, recover, rule

RULE = rule("RD-10", "basic.recover(requeue=true) also requeues cancelled consumers' and basic.get deliveries",
            strength=MUST, guide=CONFIRMS, section="automatic-requeueing")

BODIES = [b"first", b"second"]


async def held_by_a_cancelled_consumer(channel, queue):
    await channel.qos(len(BODIES))
    consumer_tag = await channel.consume(queue)
    for _ in BODIES:
        await channel.expect_delivery()
    await channel.cancel(consumer_tag)


async def held_by_basic_get(channel, queue):
    for _ in BODIES:
        await channel.get(queue)


HOLDERS = {"cancelled-consumer": held_by_a_cancelled_consumer, "basic-get": held_by_basic_get}


@pytest.mark.parametrize("held_by", HOLDERS)
@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_recover_requeues_deliveries_no_live_consumer_holds(broker, queue_type, held_by):
    queue = await broker.queue(queue_type, messages=BODIES)
    channel = await (await broker.connection()).channel()
    await HOLDERS[held_by](channel, queue)
    await recover(channel, requeue=True)
    await expect_returned(broker, queue, BODIES, redelivered=True,
                          requirement=f"basic.recover(requeue=true) requeues the unacked deliveries of a {held_by}")
