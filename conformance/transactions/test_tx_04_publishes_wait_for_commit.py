"""TX-04: messages published in a transaction reach their queues only at tx.commit, all of
them and in publish order; tx.rollback discards them all, and so does closing the channel
before a commit. After commit-ok another connection is given the reply bound to see them
(the BOOK: once the commit succeeded the messages have reached the broker; neither source
says they show on every connection the instant commit-ok leaves)."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, TX_ENDINGS, check, end_transaction,
                                                  expect_shown_after, rule)

RULE = rule("TX-04", "Publishes in a transaction are invisible until commit; rollback and close discard them",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms", requires=("tx",),
            accepts=("the committed messages showing on another connection within the reply bound after commit-ok, "
                     "not at its very instant (BOOK, transactions: if the commit succeeds the messages have "
                     "reached the broker)"))

PER_QUEUE = 3


@pytest.mark.parametrize("ending", TX_ENDINGS)
async def test_publish_in_a_transaction_lands_only_on_commit(broker, ending):
    queues = [await broker.queue(), await broker.queue()]
    published = {queue: [b"%s-%d" % (queue[-2:].encode(), n) for n in range(PER_QUEUE)] for queue in queues}
    channel = await (await broker.connection()).channel()
    await channel.tx_select()
    for n in range(PER_QUEUE):  # interleaved: the transaction holds publishes to both queues
        for queue in queues:
            channel.publish(published[queue][n], routing_key=queue)
    # A get on the same channel is handled after the publishes: none may be there yet.
    early = {queue: delivery.body for queue in queues if (delivery := await channel.get(queue, no_ack=True))}
    check(not early, "messages published in a transaction are invisible before it ends",
          expected="basic.get-empty on every queue", actual=early)

    stands = await end_transaction(channel, ending)
    await expect_shown_after(broker, queues, PER_QUEUE if stands else 0, ending)
    held = {queue: [d.body for d in await broker.take_all(queue, expected=0)] for queue in queues}
    expected = published if stands else {queue: [] for queue in queues}
    check(held == expected, f"after {ending} every queue holds {'all' if stands else 'none'} of the "
          "transaction's messages" + (", in publish order" if stands else ""), expected=expected, actual=held)
