"""ACK-02: delivery tags are scoped to a channel. A tag names a delivery of its own channel
only: acking the second channel's first tag there settles that delivery and leaves every
delivery of the first channel unacked (returned when the first channel closes).

The guide says tags are per channel, positive and increasing; it does not say where a
channel's sequence starts. RabbitMQ starts every channel at 1, so its second channel's
first tag equals the first channel's: that a fresh channel starts where the first did is
RabbitMQ's choice, a SHOULD (non-strict); on RabbitMQ the ack then names a number the
first channel also holds, which is what makes the scoping visible."""

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, expect_open, expect_returned, non_strict,
                                                  rule)

RULE = rule("ACK-02", "Tags are per channel: a tag settles a delivery of its own channel only",
            strength=MUST, guide=CONFIRMS, section="consumer-acks-delivery-tags",
            accepts=("a second channel whose sequence starts elsewhere than the first's (RabbitMQ starts each "
                     "at 1; another start is non-strict)"))


async def test_a_tag_settles_a_delivery_of_its_own_channel_only(broker):
    queue = await broker.queue(messages=[b"first-channel-1", b"first-channel-2", b"second-channel-1"])
    connection = await broker.connection()
    first, second = await connection.channel(), await connection.channel()
    first_tags = [(await first.get(queue)).delivery_tag, (await first.get(queue)).delivery_tag]
    on_second = await second.get(queue)

    if on_second.delivery_tag != first_tags[0]:
        non_strict(f"the second channel's first tag is {on_second.delivery_tag}, not {first_tags[0]} as on the "
                   "first channel: RabbitMQ starts every channel's sequence at the same number",
                   expected=f"first tag {first_tags[0]}", actual=on_second.delivery_tag)
    second.ack(on_second.delivery_tag)
    await expect_open(second, "the second channel's own tag is known on it")
    await first.close()
    await expect_returned(broker, queue, [b"first-channel-1", b"first-channel-2"], redelivered=None,
                          requirement=f"acking tag {on_second.delivery_tag} on the second channel settled only that "
                          "channel's delivery")
