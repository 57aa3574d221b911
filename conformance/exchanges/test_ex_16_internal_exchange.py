"""EX-16: a client cannot publish to an internal exchange: the publish closes the channel
with 403.

Source: basic.publish, field exchange, rule [02]. AMQP 0-9-1 reserves the internal flag
of exchange.declare (RabbitMQ undeprecates it, D25), so a broker may have no internal
exchanges: one that refuses the declare, or takes a publish to the exchange it declared
(it ignored the reserved bit), is unsupported, with what it did as the evidence. Where
conformance/brokers.toml says the broker has internal exchanges (RabbitMQ), a publish
taken breaks the rule."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, check, is_refusal, missing_feature, provoked_close, rule,
                                                  try_new_exchange, unsupported)

RULE = rule("EX-16", "Publishing to an internal exchange closes the channel with 403",
            strength=MUST, guide=SPEC, section="basic.publish", source="basic/publish/exchange [02]",
            accepts="channel.close 403 only; a broker without internal exchanges (the declare refused, or the "
                    "publish taken where brokers.toml does not say it has them) is unsupported")


async def test_publish_to_an_internal_exchange_is_refused(broker):
    connection = await broker.connection()
    channel = await connection.channel()
    exchange, answer = await try_new_exchange(broker, channel, "direct", internal=True)
    if is_refusal(answer):
        unsupported("the broker declares no internal exchange", f"exchange.declare internal=true: {answer}")
    channel = await connection.channel()
    channel.publish(b"to an internal exchange", exchange=exchange, routing_key="any")
    refused = await provoked_close(channel)
    if refused is None:
        missing_feature(broker, "internal-exchanges", "exchange.declare internal=true was answered with declare-ok, "
                        "and a publish to that exchange was taken (a round trip after it was answered)",
                        expected="channel.close 403")
    check(refused.code == 403, "a publish to an internal exchange closes the channel with 403",
          expected="channel.close 403", actual=str(refused))
