"""RQ-05: a requeued message should go back to its original position in the queue where
possible. This depends on the queue type, so the documented outcomes are accepted as a
set and the one seen is recorded: classic queues restore the original positions; quorum
queues redeliver returned messages in the order they were returned (RabbitMQ 3.10.8
puts them behind the messages never delivered, measured). Any other order is
non-strict."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, SHOULD, QUEUE_TYPES, check, get_unacked, observe,
                                                  rule)

RULE = rule("RQ-05", "A requeued message goes back to its original position where possible",
            strength=SHOULD, guide=CONFIRMS, section="consumer-nacks-requeue",
            accepts=("the original positions (classic queues) or the order of return (quorum "
                     "queues); any other order is non-strict"))

BODIES = [b"m1", b"m2", b"m3", b"m4", b"m5", b"m6", b"m7"]
REQUEUE_ORDER = [3, 1, 4, 0, 2]  # m4, m2, m5, m1, m3; m6 and m7 are never delivered
DELIVERED = len(REQUEUE_ORDER)
ORDERS = {
    "original positions": BODIES,
    "requeue order at the head": [BODIES[i] for i in REQUEUE_ORDER] + BODIES[DELIVERED:],
    "requeue order at the tail": BODIES[DELIVERED:] + [BODIES[i] for i in REQUEUE_ORDER],
}
DOCUMENTED = {"classic": {"original positions"}, "quorum": set(ORDERS)}


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_requeued_messages_return_to_their_positions(broker, queue_type):
    queue = await broker.queue(queue_type, messages=BODIES)
    async with broker.channel() as channel:
        deliveries = await get_unacked(channel, queue, DELIVERED)
        for index in REQUEUE_ORDER:
            channel.reject(deliveries[index].delivery_tag, requeue=True)
        await channel.barrier()
    order = [d.body for d in await broker.take_all(queue, expected=len(BODIES))]

    seen = next((name for name, expected in ORDERS.items() if order == expected), "another order")
    observe("queue order after requeue", b" ".join(order).decode())
    observe("outcome seen", seen)
    check(seen in DOCUMENTED[queue_type], f"requeued messages go back to a documented position in a {queue_type} queue",
          expected=" or ".join(sorted(DOCUMENTED[queue_type])), actual=f"{seen}: {order}")
