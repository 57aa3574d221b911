"""FLT-04: a consumer's acks are lost on the way (dropped by a silent link before the
connection dies, or cut mid-frame), so the broker delivers the same messages again: at
least once, as promised. Every such duplicate must carry redelivered=true; the
duplicates are counted, and an unflagged one fails."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, check, down, drain, expect_none, limit_data,
                                                  message_ids, publish_confirmed, receive, rule, silent_peer,
                                                  timeouts)

RULE = rule("FLT-04", "A message delivered twice carries redelivered=true the second time",
            strength=MUST, guide=CONFIRMS, section="automatic-requeueing")

pytestmark = pytest.mark.fault
MESSAGES = 5
LOSE_THE_ACKS = {
    "acks-dropped-then-down": (silent_peer("upstream"), down()),
    "acks-cut-mid-frame": (limit_data(4, "upstream"),),  # 4 bytes into the first ack frame
}


@pytest.mark.parametrize("faults_in_order", LOSE_THE_ACKS.values(), ids=LOSE_THE_ACKS.keys())
async def test_a_delivery_whose_ack_was_lost_comes_back_flagged(broker, faults, history, faults_in_order,
                                                                  request):
    history.fault_name = request.node.callspec.id
    ids = message_ids("flt04", MESSAGES)
    queue = await broker.queue()
    await publish_confirmed(faults, queue, ids)
    consumer = await faults.connection()
    channel = await consumer.channel()
    await channel.consume(queue)
    deliveries = await receive(channel, MESSAGES)

    await faults.apply(faults_in_order[0])
    for delivery in deliveries:
        channel.ack(delivery.delivery_tag)
    for fault in faults_in_order[1:]:
        await faults.apply(fault)
    await drain(faults, queue, expect=set(ids), within=timeouts.REPLY)

    verdict = history.check(detection_window_s=timeouts.REPLY)
    check(len(verdict.duplicated) == MESSAGES, "the lost acks made every message a duplicate",
          expected=f"{MESSAGES} duplicated", actual=verdict.duplicated)
    expect_none(verdict, "unflagged_redeliveries", "a second delivery of a message carries redelivered=true")
