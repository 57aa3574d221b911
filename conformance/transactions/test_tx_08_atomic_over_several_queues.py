"""TX-08: a transaction is all or nothing over several publishes routed to several
queues (a fanout exchange): no queue shows any of them before tx.commit, every queue shows
all of them after commit-ok (read on another connection, within the reply bound: the BOOK
says the committed messages have reached the broker, not that every connection sees them
the instant commit-ok leaves), and tx.rollback or closing the channel discards all.
(Visibility without faults only: RabbitMQ does not promise atomicity across a crash.)"""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, QUEUE_TYPES, TX_ENDINGS, check,
                                                  end_transaction, expect_shown_after, rule)

RULE = rule("TX-08", "A transaction over several publishes to several queues is all or nothing",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms", requires=("tx",),
            accepts=("the committed messages showing on another connection within the reply bound after commit-ok, "
                     "not at its very instant (BOOK, transactions: if the commit succeeds the messages have "
                     "reached the broker)"))

QUEUES = 3
MESSAGES = [b"first", b"second", b"third"]


@pytest.mark.parametrize("ending", TX_ENDINGS)
@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_a_transaction_reaches_every_queue_at_commit_or_none(broker, queue_type, ending):
    queues = [await broker.queue(queue_type) for _ in range(QUEUES)]
    fanout = await broker.fanout(*queues)
    channel = await (await broker.connection()).channel()
    await channel.tx_select()
    for body in MESSAGES:
        channel.publish(body, exchange=fanout)
    await channel.barrier()  # the publishes were handled by the channel
    seen_early = {queue: count for queue, count in (await broker.ready_counts(*queues)).items() if count}
    check(not seen_early, "no queue shows any of the transaction's messages before it ends",
          expected="0 messages ready in each queue", actual=seen_early)

    stands = await end_transaction(channel, ending)
    await expect_shown_after(broker, queues, len(MESSAGES) if stands else 0, ending)
    after = {queue: [d.body for d in await broker.take_all(queue, expected=0)] for queue in queues}
    expected = {queue: MESSAGES if stands else [] for queue in queues}
    check(after == expected, f"after {ending} every queue holds {'all' if stands else 'none'} of the "
          "transaction's messages", expected=expected, actual=after)
