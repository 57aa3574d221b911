"""CON-05: an exclusive consumer is the only consumer of a classic queue: an exclusive
consume on a queue that has a consumer, and any consume on a queue that has an exclusive
one, is refused with 403 ACCESS_REFUSED.

Quorum queues: the guide says they ignore the exclusive flag. Both outcomes (ignored,
refused as on classic queues) are accepted there and the report says which was seen."""

import pytest

from fixtures import CONSUMERS, MUST, QUEUE_TYPES, expect_exclusive_refusal, rule

RULE = rule("CON-05", "An exclusive consumer is the only consumer of a classic queue",
            strength=MUST, guide=CONSUMERS, section="exclusivity")

# (first consumer exclusive?, second consumer exclusive?)
ORDERS = {"exclusive-second": (False, True), "exclusive-first": (True, False)}


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_exclusive_and_shared_consumers_do_not_mix(broker, queue_type, order):
    first_exclusive, second_exclusive = ORDERS[order]
    queue = await broker.queue(queue_type)
    connection = await broker.connection()
    first, second = await connection.channel(), await connection.channel()
    await first.consume(queue, exclusive=first_exclusive)
    await expect_exclusive_refusal(second, queue, queue_type, exclusive=second_exclusive,
                                   requirement="an exclusive consumer never shares a classic queue")
