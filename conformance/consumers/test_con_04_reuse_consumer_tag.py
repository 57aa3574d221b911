"""CON-04: a client must not register a consumer under a tag already in use on the same
channel; the broker refuses the second basic.consume with 530 NOT_ALLOWED (AMQP 0-9-1,
basic.consume consumer-tag). Client libraries refuse to send it, so the frames go raw.

The refusal and its code are MUST. Its scope is INFO: RabbitMQ closes the whole
connection, the spec's "not-allowed" is a connection error too, but brokers differ."""

from pamqp.commands import Basic

from amqp_conformance.fixtures.vocabulary import CONSUMERS, MUST, Reply, check, expect_closed, observe, rule, timeouts

RULE = rule("CON-04", "Reusing a consumer tag on the same channel is refused with 530",
            strength=MUST, guide=CONSUMERS, section="consumer-tags",
            accepts=("a 530 close of the channel or of the connection (the scope is recorded); "
                     "another text is non-strict"))


async def test_a_second_consume_with_the_same_tag_is_refused(broker):
    queue = await broker.queue()
    async with broker.channel() as channel:
        await channel.consume(queue, consumer_tag="reused-tag")
        channel.send(Basic.Consume(queue=queue, consumer_tag="reused-tag"))
        refusal = await channel.watch(Basic.ConsumeOk, within=timeouts.REPLY)
        check(isinstance(refusal, Reply), "a second consumer under a tag in use is refused",
              expected="a close with 530 NOT_ALLOWED",
              actual=f"consume-ok({refusal.consumer_tag!r})" if isinstance(refusal, Basic.ConsumeOk)
              else "no reply at all")
        observe("scope seen", refusal.scope)
        await expect_closed(channel, code=530, text="attempt to reuse consumer tag", scope=refusal.scope,
                            requirement="the reuse of a consumer tag is refused with NOT_ALLOWED")
