"""EX-16: a client cannot publish to an internal exchange: the publish closes the channel
with 403.

Source: basic.publish, field exchange, rule [02]. AMQP 0-9-1 reserves the internal flag
of exchange.declare (RabbitMQ undeprecates it, D25): a broker that refuses to declare an
internal exchange is unsupported, with its refusal as the evidence."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, expect_closed, is_refusal, rule, try_new_exchange,
                                                  unsupported)

RULE = rule("EX-16", "Publishing to an internal exchange closes the channel with 403",
            strength=MUST, guide=SPEC, section="basic.publish", source="basic/publish/exchange [02]",
            accepts="channel.close 403 only; a broker without internal exchanges is unsupported")


async def test_publish_to_an_internal_exchange_is_refused(broker):
    connection = await broker.connection()
    channel = await connection.channel()
    exchange, answer = await try_new_exchange(broker, channel, "direct", internal=True)
    if is_refusal(answer):
        unsupported("the broker declares no internal exchange", f"exchange.declare internal=true: {answer}")
    channel = await connection.channel()
    channel.publish(b"to an internal exchange", exchange=exchange, routing_key="any")
    await expect_closed(channel, code=403, requirement="a publish to an internal exchange closes the channel")
