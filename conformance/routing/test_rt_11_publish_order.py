"""RT-11: along one path (one publishing channel, one exchange, one queue, one consuming
channel) messages arrive in the order they were published, none of them redelivered.

Source: PDF 4.7 (content ordering guarantees). The path goes through an exchange of the
test's own so that routing, not only the default exchange, is on it."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, Binding, bind, check, new_exchange, publish_on,
                                                  receive, rule)

RULE = rule("RT-11", "Messages on one path arrive in publish order",
            strength=MUST, guide=SPEC, section="basic.deliver", source="PDF 4.7")

COUNT = 60


async def test_one_path_keeps_publish_order(broker):
    queue = await broker.queue()
    connection = await broker.connection()
    publisher, consumer = await connection.channel(), await (await broker.connection()).channel()
    exchange = await new_exchange(broker, publisher, "direct")
    await bind(publisher, queue, exchange, Binding("path"))
    await consumer.consume(queue, no_ack=True)
    sent = [f"m{number:03d}".encode() for number in range(COUNT)]
    for body in sent:
        publish_on(publisher, body, exchange=exchange, key="path")
    arrived = await receive(consumer, COUNT)
    bodies = [delivery.body for delivery in arrived]
    check(len(bodies) == COUNT, "every message published arrives", expected=COUNT, actual=len(bodies))
    check(bodies == sent, "the messages arrive in the order they were published", expected="m000 .. m059 in order",
          actual=_first_out_of_order(bodies), timed=False)


def _first_out_of_order(bodies: list[bytes]) -> str:
    for position, (before, after) in enumerate(zip(bodies, bodies[1:]), 1):
        if after < before:
            return f"{after!r} after {before!r} at position {position}"
    return "in order"
