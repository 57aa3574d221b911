"""QOS-11: on a transactional channel a settle (ack, nack or reject) frees its prefetch
slot only at tx.commit; until then no further delivery comes, and a tx.rollback keeps the
slots held (the tags are outstanding again and can be settled anew).

The guides say nothing about prefetch and transactions: this is RabbitMQ's behaviour, read
from its source (rabbit_channel.erl: on a transactional channel the settles wait in the
channel's transaction state and reach the queues, and the limiter, only at tx.commit), so
a SHOULD: another broker's choice is non-strict."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, QUEUE_TYPES, SETTLE_METHODS, SHOULD,
                                                  expect_released, fill_prefetch, rule, settle)

RULE = rule("QOS-11", "Settles inside a transaction free prefetch slots only at tx.commit",
            strength=SHOULD, guide=CONFIRMS, section="channel-qos-prefetch", requires=("tx",))

PREFETCH, READY = 2, 8


async def transacted_consumer(broker, queue_type):
    queue = await broker.queue(queue_type, messages=[b"m%d" % n for n in range(READY)])
    channel = await (await broker.connection()).channel()
    await channel.tx_select()
    return channel, await fill_prefetch(channel, queue, PREFETCH)


@pytest.mark.parametrize("method", SETTLE_METHODS)
@pytest.mark.case("commit")
async def test_a_settle_frees_its_slot_only_at_commit(broker, method):
    channel, held = await transacted_consumer(broker, "classic")
    settle(channel, method, held[0].delivery_tag, requeue=False)
    await expect_released(channel, 0, f"a basic.{method} inside an open transaction frees no slot")
    await channel.tx_commit()
    await expect_released(channel, 1, f"tx.commit frees the slot of the basic.{method}: exactly one more delivery")


@pytest.mark.not_replayable_alone(
    "Qpid Broker-J frees the slots at ack time inside the transaction: the deliveries that follow race against "
    "the tx.rollback-ok on the same channel (before it in one run, after it in another), so a replay cannot be "
    "compared frame by frame")
@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
@pytest.mark.case("rollback")
async def test_a_rollback_keeps_the_slots_held(broker, queue_type):
    channel, held = await transacted_consumer(broker, queue_type)
    for delivery in held:
        channel.ack(delivery.delivery_tag)
    await channel.tx_rollback()
    await expect_released(channel, 0, "acks that were rolled back free no slot")
    for delivery in held:
        channel.ack(delivery.delivery_tag)  # outstanding again after the rollback: no error
    await channel.tx_commit()
    await expect_released(channel, PREFETCH, "the rolled-back tags can be acked again, and the commit frees "
                                             "their slots")
