"""TX-09: basic.nack and basic.reject sent in a transaction take effect at tx.commit:
requeue=true puts the message back then, requeue=false drops it then, not before.
tx.rollback (or closing the channel) leaves them unsettled: neither requeued nor dropped,
still the channel's unacked deliveries. (Transactional reject is a RabbitMQ extension of
AMQP 0-9-1, which applies it at once: a broker doing that is non-strict.)"""

import pytest

from fixtures import (CONFIRMS, MUST, QUEUE_TYPES, TX_ENDINGS, check, end_transaction, expect_nothing_returns,
                      expect_returned, get_unacked, non_strict, observe, rule)

RULE = rule("TX-09", "nack and reject in a transaction take effect at commit; rollback leaves them unsettled",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms", requires=("tx",))

REQUEUED = [b"nack requeue", b"reject requeue"]
DROPPED = [b"nack drop", b"reject drop"]


@pytest.mark.parametrize("ending", TX_ENDINGS)
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
    if early := await broker.ready_count(queue):
        non_strict(f"nack/reject took effect before tx.commit: {early} message(s) requeued at once "
                   "(AMQP 0-9-1 has no transactional reject; RabbitMQ defers it to the commit)")
        observe("after the transaction", f"{await end_transaction(channel, ending)} ({ending})")
        return

    if await end_transaction(channel, ending):
        await expect_returned(broker, queue, REQUEUED, requirement="at commit the requeue=true settles requeue "
                              "their messages")
        await channel.close()  # would requeue whatever the commit left unacked
        await expect_nothing_returns(broker, queue, "at commit the requeue=false settles drop their messages")
        return
    if channel.is_open:
        still = await broker.ready_count(queue)
        check(still == 0, f"after {ending} no settle of the transaction has requeued anything",
              expected="0 ready", actual=f"{still} ready")
        await channel.close()
    await expect_returned(broker, queue, REQUEUED + DROPPED, requirement=f"after {ending} the settled messages "
                          "were still unacked: closing the channel requeues all four, none was dropped")
