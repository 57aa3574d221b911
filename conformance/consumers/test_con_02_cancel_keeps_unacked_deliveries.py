"""CON-02: cancelling a consumer leaves its unacked deliveries alone: they are neither
requeued nor discarded and can still be acknowledged on the channel; after cancel-ok
the consumer receives nothing more. "Not requeued" is measured by what another channel can
take with basic.get (only the message never delivered), which every broker answers alike."""

import pytest
from pamqp.commands import Basic

from amqp_conformance.fixtures.vocabulary import (CONSUMERS, Delivery, MUST, QUEUE_TYPES, check, expect_deliveries,
                                                  expect_open, expect_reply, rule, timeouts)

RULE = rule("CON-02", "Cancelling a consumer neither requeues nor discards its unacked deliveries",
            strength=MUST, guide=CONSUMERS, section="unsubscribing")


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_cancel_leaves_unacked_deliveries_ackable_and_stops_deliveries(broker, queue_type):
    queue = await broker.queue(queue_type, messages=[b"held-1", b"held-2", b"waiting"])
    connection = await broker.connection()
    channel = await connection.channel()
    await channel.qos(prefetch_count=2)  # the third message waits in the queue
    consumer = await channel.consume(queue)
    held = await expect_deliveries(channel, 2, "deliveries filling prefetch 2")

    await expect_reply(channel, Basic.Cancel(consumer_tag=consumer), Basic.CancelOk,
                       "basic.cancel of a live consumer is answered with cancel-ok")
    channel.ack(held[0].delivery_tag)  # frees a prefetch slot: a live consumer would now get "waiting"
    await expect_open(channel, "an unacked delivery of a cancelled consumer can still be acked")
    late = await channel.watch(Delivery, within=timeouts.NEGATIVE_WINDOW)
    check(late is None, "no delivery after cancel-ok", expected="nothing within "
          f"{timeouts.NEGATIVE_WINDOW:.1f} s", actual=late)

    # What another channel can take is what the queue holds ready: the undelivered message
    # only. (A passive declare's count would do on RabbitMQ, but a broker may count its
    # unacked messages there too; basic.get answers alike everywhere.)
    other = await connection.channel()
    gettable = []
    while (delivery := await other.get(queue)) is not None:
        gettable.append(delivery.body)
    check(gettable == [b"waiting"], "cancelling does not requeue the unacked deliveries",
          expected="only the undelivered one can be taken: [b'waiting']", actual=gettable)
    await other.close()  # gives "waiting" back

    await channel.close()  # the other held delivery was kept, not discarded: it comes back
    returned = await broker.take_all(queue, expected=2)
    check(sorted(d.body for d in returned) == [b"held-2", b"waiting"],
          "the delivery still unacked at channel close was held, not discarded",
          expected=[b"held-2", b"waiting"], actual=sorted(d.body for d in returned))
