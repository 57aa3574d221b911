"""RQ-09: with several consumers racing on a queue, a requeued message should be
delivered before messages that were never delivered: it goes back to its original
position, or, when other consumers' deliveries and acks got in the way, nearer the head
(CONFIRMS guide). Two consumers with prefetch 1 hold m1 and m2; one acks m2 while the
other rejects m1 with requeue. Both are then free, and the next two deliveries, to
whichever consumer, should be the queue's two at the head: m1 again and m3, not m3 and
m4. Which consumer gets m1 is the broker's race to settle (RabbitMQ hands m3 to the
acking one at once; Broker-J may serve the acking consumer first, which then gets m1).
Anything else is non-strict, with the order seen (RQ-05 records where requeued messages
go without a race)."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, QUEUE_TYPES, SHOULD, check, deliveries_across, non_strict,
                                                  observe, rule, timeouts, who_got)

RULE = rule("RQ-09", "With consumers racing, a requeued message comes before never-delivered ones",
            strength=SHOULD, guide=CONFIRMS, section="consumer-nacks-requeue")

BODIES = [b"m1", b"m2", b"m3", b"m4", b"m5", b"m6"]


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_a_requeued_message_comes_before_never_delivered_ones(broker, queue_type):
    queue = await broker.queue(queue_type, messages=BODIES)
    connection = await broker.connection()
    racing = [await connection.channel() for _ in range(2)]
    for number, channel in enumerate(racing, 1):
        await channel.qos(prefetch_count=1)
        await channel.consume(queue, consumer_tag=f"racer-{number}")
    first = await deliveries_across(racing, 2)
    check(sorted(d.body for _, d in first) == BODIES[:2], "each racing consumer holds one of the first two",
          expected=BODIES[:2], actual=who_got(first) or "nothing")

    (requeuing, requeued), (acking, acked) = sorted(first, key=lambda pair: pair[1].body)
    acking.ack(acked.delivery_tag)
    requeuing.reject(requeued.delivery_tag, requeue=True)
    # Both consumers are free now: the next two deliveries, wherever they go, show what came
    # first. The long bound only spares a loaded host's slow redelivery (RQ-07 judges promptness).
    following = await deliveries_across(racing, 2, within=timeouts.REPLY * 3)
    observe("next deliveries", who_got(following) or "nothing")
    if requeued.body not in [d.body for _, d in following]:
        non_strict(f"after the requeue of {requeued.body!r} the next deliveries were "
                   f"{[d.body for _, d in following]}, never delivered before; {requeued.body!r} was not among them")
