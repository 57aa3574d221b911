"""RD-06: basic.recover with requeue=true hands every unacked delivery of the channel
back for redelivery, and the spec requires each redelivery to carry redelivered=true.
A broker without basic.recover is unsupported (the probe's reply is the evidence)."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, QUEUE_TYPES, check, expect_deliveries,
                                                  recover, rule)

RULE = rule("RD-06", "basic.recover(requeue=true) redelivers unacked messages with redelivered=true",
            strength=MUST, guide=CONFIRMS, section="automatic-requeueing")

BODIES = [b"first", b"second"]


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_recover_redelivers_unacked_messages_flagged(broker, queue_type):
    queue = await broker.queue(queue_type, messages=BODIES)
    async with broker.channel() as channel:
        await channel.consume(queue)
        await expect_deliveries(channel, len(BODIES), "first deliveries")
        await recover(channel, requeue=True)
        again = await expect_deliveries(channel, len(BODIES), "redeliveries after basic.recover")

    check(sorted(d.body for d in again) == sorted(BODIES), "every unacked message is delivered again",
          expected=sorted(BODIES), actual=sorted(d.body for d in again))
    check(all(d.redelivered for d in again), "recovered messages carry redelivered=true",
          expected="redelivered=true for all", actual={d.body: d.redelivered for d in again})
