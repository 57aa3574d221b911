"""RD-04: redelivered=false means the message was never delivered before: a first
delivery carries false, the delivery after a requeue carries true, and a message that
waited behind it untouched still carries false."""

import pytest

from amqp_conformance.fixtures.vocabulary import CONFIRMS, MUST, QUEUE_TYPES, check, rule

RULE = rule("RD-04", "A first delivery has redelivered=false; redelivered=false means never delivered before",
            strength=MUST, guide=CONFIRMS, section="automatic-requeueing")


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_redelivered_flag_tells_first_deliveries_from_redeliveries(broker, queue_type):
    queue = await broker.queue(queue_type, messages=[b"requeued", b"untouched"])
    async with broker.channel() as channel:
        first = await channel.get(queue)
        channel.reject(first.delivery_tag, requeue=True)
        await channel.barrier()
    flags = {d.body: d.redelivered for d in await broker.take_all(queue, expected=2)}

    check(first.redelivered is False, "a first delivery is not flagged redelivered",
          expected="redelivered=False", actual=f"redelivered={first.redelivered}")
    check(flags == {b"requeued": True, b"untouched": False},
          "only the message delivered before is flagged redelivered",
          expected={b"requeued": True, b"untouched": False}, actual=flags)
