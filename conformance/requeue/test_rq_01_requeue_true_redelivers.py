"""RQ-01: basic.reject or basic.nack with requeue=true puts the message back in the
queue; its next delivery is the same message, flagged redelivered=true."""

import pytest

from amqp_conformance.fixtures.vocabulary import CONFIRMS, MUST, QUEUE_TYPES, check, get_again, rule

RULE = rule("RQ-01", "reject/nack with requeue=true puts the message back; it comes again with redelivered=true",
            strength=MUST, guide=CONFIRMS, section="consumer-nacks-requeue")

REQUEUE = {
    "reject": lambda channel, tag: channel.reject(tag, requeue=True),
    "nack": lambda channel, tag: channel.nack(tag, requeue=True),
}


@pytest.mark.parametrize("method", REQUEUE)
@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_requeued_message_comes_back_flagged_redelivered(broker, queue_type, method):
    queue = await broker.queue(queue_type, messages=[b"requeued"])
    async with broker.channel() as channel:
        first = await channel.get(queue)
        REQUEUE[method](channel, first.delivery_tag)
        again = await get_again(broker, channel, queue)
    check(again.body == first.body and again.redelivered,
          f"after basic.{method}(requeue=true) the same message comes again with redelivered=true",
          expected=f"{first.body!r}, redelivered=True", actual=f"{again.body!r}, redelivered={again.redelivered}")
