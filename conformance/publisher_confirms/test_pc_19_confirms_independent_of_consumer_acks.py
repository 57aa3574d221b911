"""PC-19: publisher confirms do not depend on consumer acknowledgements (the guide calls
the two features orthogonal): while a consumer of the queue holds every delivery
unacked, the broker still acks every new publish to that queue. A broker that confirms
a message only once it was consumed and acked fails. (The cluster half, a publisher on a
node holding no replica, is not run here.)"""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, QUEUE_TYPES, ConfirmLedger, check,
                                                  expect_deliveries, expect_open, observe, rule)

RULE = rule("PC-19", "Publish confirms arrive while a consumer holds every delivery of the queue unacked",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms", requires=("confirms",))

HELD, MORE = 3, 5


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_confirms_arrive_while_every_delivery_is_unacked(broker, queue_type):
    queue = await broker.queue(queue_type, messages=[b"held-%d" % n for n in range(HELD)])
    consumer = await (await broker.connection()).channel()
    await consumer.qos(HELD)  # full with the held ones: the new publishes stay queued, unconsumed
    await consumer.consume(queue)
    await expect_deliveries(consumer, HELD, "deliveries the consumer then holds unacked")

    ledger = ConfirmLedger()
    async with broker.channel() as publisher:
        await publisher.confirm_select()
        for n in range(MORE):
            ledger.send(publisher, b"more-%d" % n, routing_key=queue)
        await ledger.collect(publisher)
    acked = [seq for seq, kinds in ledger.resolution.items() if kinds[0].startswith("ack")]
    observe("unacked deliveries while publishing", HELD)
    check(len(acked) == MORE and not ledger.problems, "every publish is acked while the queue's consumer holds "
          "all its deliveries unacked", expected=f"ack of 1-{MORE}", actual=ledger.history())
    await expect_open(consumer, "the consumer still holds its deliveries (its channel open)")
