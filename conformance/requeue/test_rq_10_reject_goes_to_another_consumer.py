"""RQ-10: a message rejected with requeue is not delivered again to the same client on
the same channel while another consumer can take it.

Source: basic/reject/requeue [01]: the server must not deliver it again to that client in
the context of the channel, and should try another consumer. RabbitMQ documents making
no such attempt (D14): the rule is judged SHOULD, and the same consumer getting the
message back is non-strict, naming D14. Each of the two consumers has room for one
message, so either could take it."""

import asyncio

from amqp_conformance.fixtures.vocabulary import (SHOULD, SPEC, Delivery, check, non_strict, observe, own_queue,
                                                  rule, timeouts)

RULE = rule("RQ-10", "A requeued reject goes to another consumer while one can take it",
            strength=SHOULD, guide=SPEC, section="basic.reject.requeue", source="basic/reject/requeue [01]",
            accepts="the same consumer getting the message back is non-strict (RabbitMQ documents no attempt, D14)")


async def test_a_rejected_message_goes_to_the_other_consumer(broker):
    setup = await (await broker.connection()).channel()
    queue = await own_queue(broker, setup)
    consumers = [await (await broker.connection()).channel() for _ in range(2)]
    for channel in consumers:
        await channel.qos(1)
        await channel.consume(queue)
    setup.publish(b"rejected once", routing_key=queue)  # taken at once: no ready count to wait for
    first = await first_delivery(consumers)
    check(first is not None, "the message is delivered to one of the consumers",
          expected="a delivery", actual=f"none within {timeouts.REPLY:.1f} s")
    rejecting, delivery = first
    rejecting.reject(delivery.delivery_tag, requeue=True)
    again = await first_delivery(consumers)
    check(again is not None and again[1].body == b"rejected once", "the requeued message is delivered again",
          expected="a redelivery", actual=f"none within {timeouts.REPLY:.1f} s")
    observe("redelivered to", "the same consumer" if again[0] is rejecting else "the other consumer")
    if again[0] is rejecting:
        non_strict("the rejected message came back to the consumer that rejected it on the same channel, while the "
                   "other had room for it (RabbitMQ documents no attempt to avoid that, D14)",
                   expected="delivered to the other consumer", actual="delivered to the same consumer")


async def first_delivery(channels) -> tuple | None:
    """The first delivery to any of `channels` within a reply's bound, with its channel."""
    waits = {asyncio.ensure_future(channel.expect(Delivery)): channel for channel in channels}
    done, pending = await asyncio.wait(waits, timeout=timeouts.REPLY, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    for task in done:
        if task.exception() is None:
            return waits[task], task.result()
    return None
