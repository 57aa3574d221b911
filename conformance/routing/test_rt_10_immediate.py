"""RT-10: an immediate message that no consumer can take at once comes back by basic.return
with 313 NO_CONSUMERS; one whose queue has a ready consumer is delivered.

Source: `basic/publish/immediate [01]` (SHOULD implement the flag), constant 313.
RabbitMQ documents the flag as unsupported (D11) and closes the connection with 540
NOT_IMPLEMENTED: a broker that refuses the flag with 540 is unsupported, by the refusal."""

from amqp_conformance.fixtures.vocabulary import (SHOULD, SPEC, Returned, check, contents, expect_immediate_taken,
                                                  publish_on, rule)

RULE = rule("RT-10", "An immediate message with no ready consumer is returned with 313",
            strength=SHOULD, guide=SPEC, section="basic.publish.immediate", source="basic/publish/immediate [01]",
            accepts="unsupported where the broker refuses the flag with 540 NOT_IMPLEMENTED (RabbitMQ, D11)")

NO_CONSUMERS = 313


async def test_immediate_needs_a_ready_consumer(broker):
    without_consumer, with_consumer = await broker.queue(), await broker.queue()
    connection = await broker.connection()
    consumer, publisher = await connection.channel(), await connection.channel()
    await consumer.consume(with_consumer, no_ack=True)
    publish_on(publisher, b"to a consumer", key=with_consumer, immediate=True)
    await expect_immediate_taken(publisher, consumer, b"to a consumer")
    publish_on(publisher, b"to nobody", key=without_consumer, immediate=True)
    returned = await publisher.expect(Returned, waiting_for="the basic.return of the immediate message")
    check(returned.body == b"to nobody" and returned.reply_code == NO_CONSUMERS,
          "the message no consumer could take is returned with 313 NO_CONSUMERS",
          expected=f"{NO_CONSUMERS} with b'to nobody'", actual=f"{returned.reply_code} with {returned.body!r}")
    held = await contents(publisher, without_consumer)
    check(held == [], "the returned message is not queued", expected=[], actual=held)
