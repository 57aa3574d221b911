"""ACK-03: acking (ack, nack or reject) a delivery tag never delivered on the channel
closes the channel with 406 PRECONDITION_FAILED."""

import pytest

from amqp_conformance.fixtures.vocabulary import CONFIRMS, MUST, SETTLE_METHODS, expect_closed, rule, settle

RULE = rule("ACK-03", "Acking a delivery tag never delivered on the channel closes the channel",
            strength=MUST, guide=CONFIRMS, section="consumer-acks-double-acking")

NEVER_DELIVERED = 999


@pytest.mark.parametrize("method", SETTLE_METHODS)
async def test_settling_an_unknown_tag_closes_the_channel(broker, method):
    queue = await broker.queue(messages=[b"outstanding"])
    async with broker.channel() as channel:
        await channel.get(queue)  # tag 1 is outstanding, so the broker has acks to look up
        settle(channel, method, NEVER_DELIVERED)
        await expect_closed(channel, code=406, text=f"unknown delivery tag {NEVER_DELIVERED}",
                            requirement=f"basic.{method} of a tag never delivered closes the channel")
