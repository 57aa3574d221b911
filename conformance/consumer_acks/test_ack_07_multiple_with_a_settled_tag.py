"""ACK-07: basic.ack with multiple=true names a tag that must itself be outstanding. If
that tag was already acked it is an unknown tag: the channel is closed with 406 and
nothing is settled, so the lower tags still outstanding return to the queue."""

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, expect_closed, expect_returned, get_unacked,
                                                  rule)

RULE = rule("ACK-07", "multiple=true with a tag already acked is an unknown tag; nothing is settled",
            strength=MUST, guide=CONFIRMS, section="consumer-acks-double-acking")


async def test_multiple_ack_of_a_settled_tag_closes_the_channel_and_settles_nothing(broker):
    queue = await broker.queue(messages=[b"m1", b"m2", b"m3"])
    async with broker.channel() as channel:
        deliveries = await get_unacked(channel, queue, 3)
        settled = deliveries[1].delivery_tag
        channel.ack(settled)
        channel.ack(settled, multiple=True)
        await expect_closed(channel, code=406, text=f"unknown delivery tag {settled}",
                            requirement="ack(multiple=true) of a tag already acked closes the channel")
    await expect_returned(broker, queue, [b"m1", b"m3"], redelivered=None,
                          requirement="the refused multiple ack settled nothing: tags 1 and 3 return")
