"""RQ-02: reject or nack with requeue=false never puts the message back. Without a
dead-letter exchange it is dropped; with one configured on the queue it is dead-lettered
there, carrying an x-death header. This holds for a single reject, a single nack, and
every delivery a nack with multiple=true covers.

A broker that dead-letters nothing at all (not even an expired message: the probe) is
unsupported for the dead-letter case; one that dead-letters expired messages but drops
rejected ones breaks the rule."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, QUEUE_TYPES, dead_letter_to,
                                                  expect_dead_lettered, expect_nothing_returns, expect_open,
                                                  get_unacked, rule)

RULE = rule("RQ-02", "requeue=false drops the message, or dead-letters it when the queue has a dead-letter exchange",
            strength=MUST, guide=CONFIRMS, section="consumer-nacks-requeue")

BODIES = [b"rejected", b"nacked", b"nacked-multiple-1", b"nacked-multiple-2"]


async def settle_without_requeue(broker, queue):
    async with broker.channel() as channel:
        rejected, nacked, _, last = await get_unacked(channel, queue, len(BODIES))
        channel.reject(rejected.delivery_tag, requeue=False)
        channel.nack(nacked.delivery_tag, requeue=False)
        channel.nack(last.delivery_tag, multiple=True, requeue=False)  # covers the last two
        await expect_open(channel, "reject and nack (single and multiple) with requeue=false are not errors")


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
@pytest.mark.case("no-dead-letter-exchange")
async def test_without_dead_letter_exchange_the_message_is_dropped(broker, queue_type):
    queue = await broker.queue(queue_type, messages=BODIES)
    await settle_without_requeue(broker, queue)
    await expect_nothing_returns(broker, queue, "a message rejected with requeue=false does not come back")


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
@pytest.mark.case("dead-letter-exchange")
async def test_with_dead_letter_exchange_the_message_is_dead_lettered(broker, queue_type):
    dead_letters = await broker.queue()
    queue = await broker.queue(queue_type, messages=BODIES, arguments=dead_letter_to(dead_letters))
    await settle_without_requeue(broker, queue)

    await expect_dead_lettered(broker, queue, dead_letters, BODIES,
                               requirement="every message settled with requeue=false is dead-lettered")
