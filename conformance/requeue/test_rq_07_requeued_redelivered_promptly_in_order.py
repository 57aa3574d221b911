"""RQ-07: a message requeued while a consumer with free prefetch capacity is attached is
redelivered to it promptly, without waiting for a new publish; where one nack covers
several deliveries they come back in the order of the requeue (for a multiple nack:
the order they were delivered in). How long the first redelivery took is recorded (INFO).

Nothing is published after the nack, so a broker that dispatches only when a message
arrives shows it as silence here."""

import time

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, QUEUE_TYPES, SHOULD, check,
                                                  deliveries_until_quiet, fill_prefetch, observe, rule)

RULE = rule("RQ-07", "A requeued message goes promptly to a consumer with free capacity, in requeue order",
            strength=SHOULD, guide=CONFIRMS, section="consumer-nacks-requeue")

BODIES = [b"m1", b"m2", b"m3", b"m4"]


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_requeued_messages_come_back_promptly_in_requeue_order(broker, queue_type):
    queue = await broker.queue(queue_type, messages=BODIES)
    async with broker.channel() as channel:
        delivered = await fill_prefetch(channel, queue, len(BODIES))  # every message out, none left to publish
        nacked_at = time.monotonic()
        channel.nack(delivered[-1].delivery_tag, multiple=True, requeue=True)
        first_again = await channel.expect_delivery()
        observe("first redelivery after the nack", f"{(time.monotonic() - nacked_at) * 1000:.0f} ms")
        again = [first_again, *await deliveries_until_quiet(channel, expected=len(BODIES) - 1, quiet=0)]

    check(sorted(d.body for d in again) == sorted(BODIES),
          "every requeued message comes back to the consumer, with no new publish",
          expected=sorted(BODIES), actual=sorted(d.body for d in again))
    check([d.body for d in again] == [d.body for d in delivered],
          "one nack covering several requeues them in its order (for a multiple nack, delivery order)",
          expected=[d.body for d in delivered], actual=[d.body for d in again])
