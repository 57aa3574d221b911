"""ACK-13: a requeued message that comes back is a new delivery with a new tag. The old
tag was settled by the requeue, so acking it is an unknown tag (406)."""

from amqp_conformance.fixtures.vocabulary import CONFIRMS, MUST, check, expect_closed, get_again, rule

RULE = rule("ACK-13", "A requeued message comes back with a new tag; acking the old tag is an unknown tag",
            strength=MUST, guide=CONFIRMS, section="consumer-nacks-requeue")


async def test_old_tag_of_a_requeued_message_is_unknown(broker):
    queue = await broker.queue(messages=[b"requeued"])
    async with broker.channel() as channel:
        first = await channel.get(queue)
        channel.nack(first.delivery_tag, requeue=True)
        again = await get_again(broker, channel, queue)
        check(again.body == first.body and again.delivery_tag != first.delivery_tag,
              "the requeued message comes back under a new delivery tag",
              expected=f"{first.body!r} with a tag other than {first.delivery_tag}",
              actual=f"{again.body!r} with tag {again.delivery_tag}")
        channel.ack(first.delivery_tag)
        await expect_closed(channel, code=406, text=f"unknown delivery tag {first.delivery_tag}",
                            requirement="acking the tag of the requeued (earlier) delivery closes the channel")

