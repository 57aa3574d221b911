"""CON-01: basic.consume on a queue that does not exist is a channel error: the broker
closes the channel with 404 NOT_FOUND."""

from pamqp.commands import Basic

from amqp_conformance.fixtures.vocabulary import CONSUMERS, MUST, expect_closed, rule

RULE = rule("CON-01", "Consuming from a queue that does not exist closes the channel with 404",
            strength=MUST, guide=CONSUMERS, section="basics")


async def test_consuming_from_a_missing_queue_closes_the_channel(broker):
    never_declared = broker.name("missing")
    async with broker.channel() as channel:
        channel.send(Basic.Consume(queue=never_declared))
        await expect_closed(channel, code=404, text=f"no queue '{never_declared}'",
                            requirement="basic.consume on a missing queue closes the channel with NOT_FOUND")
