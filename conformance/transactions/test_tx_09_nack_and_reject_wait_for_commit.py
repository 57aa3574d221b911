"""TX-09: basic.nack and basic.reject sent in a transaction take effect at tx.commit:
requeue=true puts the message back then, requeue=false drops it then, not before.
tx.rollback (or closing the channel) leaves them unsettled: neither requeued nor dropped,
still the channel's unacked deliveries. Once commit-ok comes the effect is there: the
committing channel's next basic.get sees it, with no wait. (Transactional reject is a RabbitMQ extension of AMQP 0-9-1, which
applies it at once: a broker doing that is non-strict, and is still judged on what its
settles did at the commit, or, after a rollback, on their standing as applied.)"""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, QUEUE_TYPES, TX_ENDINGS, check,
                                                  end_transaction, expect_nothing_returns, expect_returned,
                                                  get_unacked, non_strict, observe, rule)

RULE = rule("TX-09", "nack and reject in a transaction take effect at commit; rollback leaves them unsettled",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms", requires=("tx",))

REQUEUED = [b"nack requeue", b"reject requeue"]
DROPPED = [b"nack drop", b"reject drop"]
# After a rollback or a channel close the verdict turns on whether the broker applied the
# settles at once, which another connection read mid-case: the one connection's frames,
# replayed on a broker that defers them, judge the other branch.
ENDINGS = [pytest.param(ending, marks=() if commits else pytest.mark.not_replayable_alone(
    "whether the settles were applied before the transaction ended is read on another connection, "
    "which the reproducer does not replay")) for ending, commits in TX_ENDINGS.items()]


@pytest.mark.parametrize("ending", ENDINGS)
@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_nack_and_reject_in_a_transaction_wait_for_commit(broker, queue_type, ending):
    queue = await broker.queue(queue_type, messages=REQUEUED + DROPPED)
    channel = await (await broker.connection()).channel()
    await channel.tx_select()
    nack_requeue, reject_requeue, nack_drop, reject_drop = await get_unacked(channel, queue, 4)
    channel.nack(nack_requeue.delivery_tag, requeue=True)
    channel.reject(reject_requeue.delivery_tag, requeue=True)
    channel.nack(nack_drop.delivery_tag, requeue=False)
    channel.reject(reject_drop.delivery_tag, requeue=False)
    await channel.barrier()  # the settles were handled by the channel
    # AMQP 0-9-1 applies a reject at once; RabbitMQ defers it to the commit. A broker that
    # applied the settles at once is non-strict, and still judged below by what it did.
    early = await broker.ready_count(queue)
    if early:
        non_strict(f"nack/reject took effect before tx.commit: {early} message(s) requeued at once "
                   "(AMQP 0-9-1 has no transactional reject; RabbitMQ defers it to the commit)")

    if await end_transaction(channel, ending):
        # Judged on the committing channel itself: its next basic.get reaches the queue
        # after the commit's settles, so it sees their effect at once. (RabbitMQ answers
        # commit-ok once the publishes are confirmed, without waiting for the settles:
        # another connection may read a quorum queue's count before the requeue lands.)
        observe("ready at commit-ok, read from another connection", await broker.ready_count(queue))
        back = [d for d in [await channel.get(queue, no_ack=True) for _ in range(len(REQUEUED) + 1)] if d]
        check(sorted(d.body for d in back) == sorted(REQUEUED) and all(d.redelivered for d in back),
              "once the commit is answered the requeue=true settles have put their messages back, flagged "
              "redelivered", expected=sorted(REQUEUED), actual={d.body: d.redelivered for d in back})
        await channel.close()  # would requeue whatever the commit left unacked
        await expect_nothing_returns(broker, queue, "at commit the requeue=false settles drop their messages")
        return
    if channel.is_open:
        still = await broker.ready_count(queue)
        check(still == early, f"after {ending} no settle of the transaction has requeued anything more",
              expected=f"{early} ready", actual=f"{still} ready")
        await channel.close()
    if early:  # the settles were applied at once, so they stand: requeued ones back, dropped ones gone
        await expect_returned(broker, queue, REQUEUED, requirement=f"after {ending} the settles applied before it "
                              "stand: the requeued messages are back, the dropped ones stay gone")
    else:
        await expect_returned(broker, queue, REQUEUED + DROPPED, requirement=f"after {ending} the settled messages "
                              "were still unacked: closing the channel requeues all four, none was dropped")
