"""ACK-02: delivery tags are scoped to a channel. A fresh channel starts its own
sequence (from 1, like the first), and its tag 1 names its own delivery only: acking
it there leaves the other channel's tag 1 unacked."""

from amqp_conformance.fixtures.vocabulary import CONFIRMS, MUST, check, expect_open, expect_returned, rule

RULE = rule("ACK-02", "Tags are per channel: a fresh channel starts its own sequence",
            strength=MUST, guide=CONFIRMS, section="consumer-acks-delivery-tags")


async def test_a_fresh_channel_starts_its_own_tag_sequence(broker):
    queue = await broker.queue(messages=[b"first-channel-1", b"first-channel-2", b"second-channel-1"])
    connection = await broker.connection()
    first, second = await connection.channel(), await connection.channel()
    first_tags = [(await first.get(queue)).delivery_tag, (await first.get(queue)).delivery_tag]
    on_second = await second.get(queue)

    check(on_second.delivery_tag == first_tags[0], "a fresh channel starts its own sequence, as the first did",
          expected=f"first tag {first_tags[0]} on the second channel", actual=f"{on_second.delivery_tag} "
          f"(first channel: {first_tags})")
    second.ack(on_second.delivery_tag)
    await expect_open(second, "the second channel's own tag is known on it")
    await first.close()
    await expect_returned(broker, queue, [b"first-channel-1", b"first-channel-2"], redelivered=None,
                          requirement="acking tag 1 on the second channel settled only that channel's delivery")
