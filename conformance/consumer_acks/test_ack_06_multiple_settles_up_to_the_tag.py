"""ACK-06: basic.ack with multiple=true settles every outstanding delivery up to and
including its tag; with multiple=false, only that one delivery. What stayed unacked is
seen by closing the channel: exactly those messages return to the queue."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, expect_open, expect_returned, get_unacked,
                                                  rule)

RULE = rule("ACK-06", "ack multiple=true settles every outstanding tag up to N; multiple=false only N",
            strength=MUST, guide=CONFIRMS, section="consumer-acks-multiple-parameter")

BODIES = [b"m1", b"m2", b"m3", b"m4"]
STILL_UNACKED = {True: [b"m3", b"m4"], False: [b"m1", b"m3", b"m4"]}


@pytest.mark.parametrize("multiple", [True, False], ids=["multiple", "single"])
async def test_ack_settles_the_covered_tags_only(broker, multiple):
    queue = await broker.queue(messages=BODIES)
    async with broker.channel() as channel:
        deliveries = await get_unacked(channel, queue, len(BODIES))
        channel.ack(deliveries[1].delivery_tag, multiple=multiple)
        await expect_open(channel, "acking an outstanding tag is not an error")
    await expect_returned(broker, queue, STILL_UNACKED[multiple], redelivered=None,
                          requirement=f"ack(tag 2, multiple={multiple}) settles "
                                      f"{'tags 1-2' if multiple else 'tag 2 only'}; the rest return on close")
