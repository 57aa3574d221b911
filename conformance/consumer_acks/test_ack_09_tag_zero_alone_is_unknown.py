"""ACK-09: delivery tag 0 is reserved (the spec: tags are never zero). Acking tag 0 with
multiple=false names no delivery, so it should close the channel like any unknown tag
(RabbitMQ: 406 "unknown delivery tag 0")."""

from amqp_conformance.fixtures.vocabulary import CONFIRMS, SHOULD, expect_closed, rule

RULE = rule("ACK-09", "ack(0, multiple=false) is an unknown tag: tag 0 is reserved",
            strength=SHOULD, guide=CONFIRMS, section="consumer-acks-multiple-parameter")


async def test_ack_of_tag_zero_alone_closes_the_channel(broker):
    queue = await broker.queue(messages=[b"outstanding"])
    async with broker.channel() as channel:
        await channel.get(queue)  # tag 1 is outstanding: only tag 0 itself is in question
        channel.ack(0, multiple=False)
        await expect_closed(channel, code=406, text="unknown delivery tag 0",
                            requirement="ack(0, multiple=false) closes the channel")
