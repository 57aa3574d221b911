"""FLT-07: acks a consumer sends just before it closes its channel (or connection) are
honoured: the broker handles a channel's frames in order, so an acked message is never
delivered again, while the unacked ones come back flagged. The acks and the close
travel together through a delayed or sliced link, with no barrier between them."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, check, drain, expect_none, latency, message_ids,
                                                  publish_confirmed, receive, rule, slicer, timeouts)

RULE = rule("FLT-07", "Acks sent just before a channel close are honoured",
            strength=MUST, guide=CONFIRMS, section="automatic-requeueing")

pytestmark = pytest.mark.fault
MESSAGES = 10
LINKS = [latency(20), slicer(4, 3, 50)]


async def close_channel(connection, channel):
    await channel.close()


async def close_connection(connection, channel):
    await connection.close()


@pytest.mark.parametrize("close", [close_channel, close_connection], ids=["channel-close", "connection-close"])
@pytest.mark.parametrize("link", LINKS, ids=str)
async def test_acked_deliveries_are_not_redelivered_after_close(broker, faults, history, link, close):
    history.fault_name = f"{link.name}, {close.__name__}"
    ids = message_ids("flt07", MESSAGES)
    queue = await broker.queue()
    await publish_confirmed(faults, queue, ids)
    consumer = await faults.connection()
    channel = await consumer.channel()
    # The link takes hold on the open connection: the rule is about the deliveries, acks
    # and close that cross it (a handshake through a slicer is FLT-05's business).
    await faults.apply(link)
    await channel.consume(queue)
    deliveries = await receive(channel, MESSAGES)
    check(len(deliveries) == MESSAGES, "the consumer received every message", expected=MESSAGES,
          actual=len(deliveries))

    acked = deliveries[::2]
    for delivery in acked:
        channel.ack(delivery.delivery_tag)
    await close(consumer, channel)
    await drain(faults, queue, expect={d.message_id for d in deliveries[1::2]}, within=timeouts.REPLY)

    verdict = history.check()
    expect_none(verdict, "acked_redelivered", "a message acked before the close is not delivered again")
    expect_none(verdict, "not_redelivered", "every unacked delivery is delivered again")
    expect_none(verdict, "unflagged_redeliveries", "a redelivery carries redelivered=true")
