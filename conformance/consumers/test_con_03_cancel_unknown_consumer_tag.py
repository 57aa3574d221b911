"""CON-03: basic.cancel with a consumer tag the channel never used is not an error: the
broker answers cancel-ok and the channel stays open. The consumers guide is silent about
unknown tags; this is RabbitMQ's choice (rabbit_channel.erl answers cancel-ok for a tag it
does not know, so a cancel can be repeated safely), a SHOULD: garagemq, which closes the
channel, is non-strict."""

from pamqp.commands import Basic

from amqp_conformance.fixtures.vocabulary import CONSUMERS, SHOULD, expect_open, expect_reply, rule

RULE = rule("CON-03", "Cancelling an unknown consumer tag is answered with cancel-ok",
            strength=SHOULD, guide=CONSUMERS, section="unsubscribing")


async def test_cancelling_an_unknown_consumer_tag_is_ignored(broker):
    async with broker.channel() as channel:
        await expect_reply(channel, Basic.Cancel(consumer_tag="never-registered"), Basic.CancelOk,
                           "basic.cancel of an unknown consumer tag is answered with cancel-ok")
        await expect_open(channel, "the channel stays open after cancelling an unknown tag")
