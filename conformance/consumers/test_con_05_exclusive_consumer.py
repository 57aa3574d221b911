"""CON-05: an exclusive consumer is the only consumer of a classic queue: an exclusive
consume on a queue that has a consumer, and any consume on a queue that has an exclusive
one, is refused. The guide says the consume is refused, not how: any close of the channel
or its connection passes; RabbitMQ's channel.close 403 ACCESS_REFUSED (the specification's
access-refused) is the SHOULD, as in CON-07.

Quorum queues ignore the exclusive flag (CONSUMERS guide, "Exclusivity"): there both
consumes must be accepted, and the channel stays open."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONSUMERS, MUST, QUEUE_TYPES, expect_consume_accepted,
                                                  expect_exclusive_refusal, expect_refused, rule)

RULE = rule("CON-05", "An exclusive consumer is the only consumer of a classic queue",
            strength=MUST, guide=CONSUMERS, section="exclusivity",
            accepts=("on classic queues any close of the channel or the connection (another code or scope "
                     "than RabbitMQ's channel.close 403 is non-strict); on quorum queues, which ignore the "
                     "flag, only consume-ok"))

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
    if queue_type == "quorum":
        await expect_consume_accepted(second, queue, exclusive=second_exclusive,
                                      requirement="a quorum queue ignores the exclusive flag: the consume is accepted")
    else:
        await expect_exclusive_refusal(second, queue, queue_type, exclusive=second_exclusive,
                                       requirement="an exclusive consumer never shares a classic queue",
                                       refusal=expect_refused)
