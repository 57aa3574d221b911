"""ACK-08: basic.ack with tag 0 and multiple=true means "everything received so far":
it settles every outstanding delivery, and is no error when nothing is outstanding."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, expect_nothing_returns, expect_open,
                                                  get_unacked, rule)

RULE = rule("ACK-08", "ack(0, multiple=true) settles everything outstanding, and is no error when nothing is",
            strength=MUST, guide=CONFIRMS, section="consumer-acks-multiple-parameter")


@pytest.mark.case("outstanding")
async def test_ack_zero_multiple_settles_every_outstanding_delivery(broker):
    queue = await broker.queue(messages=[b"m1", b"m2", b"m3"])
    async with broker.channel() as channel:
        await get_unacked(channel, queue, 3)
        channel.ack(0, multiple=True)
        await expect_open(channel, "ack(0, multiple=true) with deliveries outstanding is not an error")
    await expect_nothing_returns(broker, queue, "after ack(0, multiple=true) nothing is left to requeue on close")


@pytest.mark.case("nothing-outstanding")
async def test_ack_zero_multiple_with_nothing_outstanding_is_no_error(broker):
    async with broker.channel() as channel:
        channel.ack(0, multiple=True)
        await expect_open(channel, "ack(0, multiple=true) with nothing outstanding is not an error")
