"""RD-08: deliveries made in automatic-ack mode are settled when sent (fire-and-forget):
neither closing the consumer's connection nor basic.recover brings them back."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, Delivery, MUST, check, expect_nothing_returns, recover,
                                                  rule, timeouts)

RULE = rule("RD-08", "Automatic-ack deliveries are not redelivered after close or recover",
            strength=MUST, guide=CONFIRMS, section="acknowledgement-modes")

BODIES = [b"first", b"second"]


async def consume_without_ack(broker, channel):
    queue = await broker.queue(messages=BODIES)
    await channel.consume(queue, no_ack=True)
    for _ in BODIES:
        await channel.expect_delivery()
    return queue


@pytest.mark.case("close")
async def test_closing_the_connection_returns_nothing(broker):
    async with broker.channel() as channel:
        queue = await consume_without_ack(broker, channel)
    await expect_nothing_returns(broker, queue, "auto-acked deliveries are not requeued when the connection closes")


@pytest.mark.case("recover")
async def test_recover_redelivers_nothing(broker):
    async with broker.channel() as channel:
        await consume_without_ack(broker, channel)
        await recover(channel, requeue=True)
        redelivery = await channel.watch(Delivery, within=timeouts.NEGATIVE_WINDOW)
    check(redelivery is None, "basic.recover does not redeliver auto-acked deliveries",
          expected=f"no delivery for {timeouts.NEGATIVE_WINDOW:.1f} s", actual=str(redelivery))
