"""CH-08: a consumer tag belongs to the channel that made the consumer: a basic.cancel on
channel B naming the tag of channel A's consumer leaves A's consumer running.

Source: `basic/consume/consumer-tag [02]`: using another channel's tag is a fault the
spec answers with 530 NOT_ALLOWED (a connection exception: then A's consumer ends with its
connection, as the spec wants, and its survival is not exercised). RabbitMQ answers a
cancel of any tag its channel does not know with cancel-ok (rabbit_channel.erl
handle_method/3 for basic.cancel, v4.0.5 lines 1409-1418, which reads basic/cancel [01]
as asking for it; CON-03 judges that answer for a tag no channel has). No guide or D entry
documents it for another channel's tag: that answer is non-strict, its reason names the
source, and A's consumer must then keep receiving. Whether the tags the broker
generates differ across channels the spec leaves open (a tag is local to its channel;
"unique" may mean within it): recorded. Where both channels got the same tag, B's cancel
names B's own consumer, and A's consumer must still keep receiving."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, cancel_elsewhere, check, not_exercised, observe,
                                                  publish_on, receive, rule)

RULE = rule("CH-08", "Cancelling another channel's consumer tag leaves that consumer running",
            strength=MUST, guide=SPEC, section="basic.consume.consumer-tag", source="basic/consume/consumer-tag [02]",
            accepts=("connection.close 530 (the spec's answer); cancel-ok (RabbitMQ's choice, rabbit_channel.erl "
                     "basic.cancel of a tag the channel does not know; no D entry) or another close is non-strict; "
                     "generated tags equal or not across channels, recorded; A's consumer keeps receiving whenever "
                     "its connection lives"))


async def test_a_tag_cancelled_on_another_channel_keeps_its_consumer(broker):
    queue_a, queue_b = await broker.queue(), await broker.queue()
    connection = await broker.connection()
    channel_a, channel_b = await connection.channel(), await connection.channel()
    tag_a, tag_b = await channel_a.consume(queue_a, no_ack=True), await channel_b.consume(queue_b, no_ack=True)
    observe("generated consumer tags", f"A {tag_a!r}, B {tag_b!r}" + (" (the same)" if tag_a == tag_b else ""))
    if tag_a == tag_b:
        await channel_b.cancel(tag_b)  # B's own consumer, which bears the same tag
    elif not await cancel_elsewhere(channel_b, tag_a):
        not_exercised("the connection was closed as the spec asks: A's consumer ended with it")
        return
    publish_on(channel_a, b"still for A", key=queue_a)
    delivered = await receive(channel_a, 1)
    check([(d.body, d.consumer_tag) for d in delivered] == [(b"still for A", tag_a)],
          "A's consumer keeps receiving after B cancelled its tag", expected=[(b"still for A", tag_a)],
          actual=[(d.body, d.consumer_tag) for d in delivered])
