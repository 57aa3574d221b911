"""RQ-09: with several consumers racing on a queue, a requeued message should be
delivered before messages that were never delivered: it goes back to its original
position, or, when other consumers' deliveries and acks got in the way, nearer the head
(CONFIRMS guide). Two consumers with prefetch 1 hold m1 and m2; one acks m2 (and is
handed m3 at once) while the other rejects m1 with requeue: the next delivery to the free
consumer should be m1 again, before m4. Anything else is non-strict, with the order seen
(RQ-05 records where requeued messages go without a race)."""

import pytest

from fixtures import (CONFIRMS, QUEUE_TYPES, SHOULD, Delivery, check, deliveries_across, non_strict, observe, receive,
                      rule, timeouts, who_got)

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
    # The requeuing consumer is the free one: its next delivery shows what came first. The
    # long bound only spares a loaded host's slow redelivery (RQ-07 judges promptness).
    following = await receive(requeuing, 1, within=timeouts.REPLY * 3)
    observe("next deliveries", {"requeuing consumer": [d.body for d in following],
                                "acking consumer": [d.body for d in acking.take(Delivery)]})
    if [d.body for d in following] != [requeued.body]:
        non_strict(f"the free consumer's next delivery after the requeue of {requeued.body!r} was "
                   + (f"{following[0].body!r}, never delivered before" if following else
                      f"nothing within {timeouts.REPLY * 3:.0f} s"))
