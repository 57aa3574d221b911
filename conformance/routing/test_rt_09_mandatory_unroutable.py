"""RT-09: a mandatory message no queue takes comes back by basic.return, with its body and
the reply code 312 NO_ROUTE, and is queued nowhere; a message without the flag that no
queue takes is dropped in silence; a mandatory message that is routed is not returned.

Source: `basic/publish/mandatory [01]` (SHOULD implement the flag), the mandatory field's
doc, ERRATA 17. The XML names no code for a return of an unroutable message: 312 NO_ROUTE
is RabbitMQ's documented choice (D22), held here as the SHOULD it is."""

from amqp_conformance.fixtures.vocabulary import (NO_ROUTE, SHOULD, SPEC, Binding, Returned, bind, check,
                                                  contents, new_exchange, publish_on, rule)

RULE = rule("RT-09", "A mandatory unroutable message is returned with 312; a plain one is dropped",
            strength=SHOULD, guide=SPEC, section="basic.publish.mandatory",
            source="basic/publish/mandatory [01]; ERRATA 17",
            accepts="any answer, a difference is non-strict; the 312 code is RabbitMQ's documented choice (D22)")


async def test_only_mandatory_unroutable_messages_come_back(broker):
    connection = await broker.connection()
    channel = await connection.channel()
    exchange = await new_exchange(broker, channel, "direct")
    queue = await broker.queue()
    await bind(channel, queue, exchange, Binding("bound"))
    publish_on(channel, b"mandatory, routed", exchange=exchange, key="bound", mandatory=True)
    publish_on(channel, b"plain, unroutable", exchange=exchange, key="unbound")
    publish_on(channel, b"mandatory, unroutable", exchange=exchange, key="unbound", mandatory=True)
    first = await channel.expect(Returned, waiting_for="the basic.return of the mandatory unroutable message")
    check(first.body == b"mandatory, unroutable",
          "only the mandatory unroutable message is returned (the others come before it, if at all)",
          expected=b"mandatory, unroutable", actual=first.body)
    check(first.reply_code == NO_ROUTE, "the return carries 312 NO_ROUTE (D22)", expected=NO_ROUTE,
          actual=f"{first.reply_code} {first.reply_text!r}")
    held = await contents(channel, queue)
    check(held == [b"mandatory, routed"] and not channel.take(Returned),
          "the routed message is queued, nothing else is, and nothing more came back",
          expected=[b"mandatory, routed"], actual=held)
