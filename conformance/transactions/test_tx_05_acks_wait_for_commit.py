"""TX-05: an acknowledgement sent in a transaction takes effect at tx.commit; tx.rollback
undoes it, and so does closing the channel before a commit: the message is then
unacknowledged again, and requeued."""

import pytest

from amqp_conformance.fixtures.vocabulary import CONFIRMS, MUST, check, rule

RULE = rule("TX-05", "Acks in a transaction take effect at commit and are undone by rollback",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms", requires=("tx",))


async def commit(broker, channel, queue):
    await channel.tx_commit()
    return await unacked_requeued(channel, queue)


async def rollback(broker, channel, queue):
    await channel.tx_rollback()
    return await unacked_requeued(channel, queue)


async def close(broker, channel, queue):
    await channel.close()
    return await broker.take_all(queue, expected=1)


async def unacked_requeued(channel, queue):
    # basic.recover requeues whatever is still unacked on the channel; a get on the same
    # channel, handled after it, shows whether the ack had taken effect.
    await channel.recover(requeue=True)
    return [d for d in [await channel.get(queue, no_ack=True)] if d is not None]


# ending -> whether the ack stands afterwards
ENDINGS = {"commit": (commit, True), "rollback": (rollback, False), "channel-close": (close, False)}


@pytest.mark.parametrize("ending", ENDINGS)
async def test_ack_in_a_transaction_stands_only_after_commit(broker, ending):
    queue = await broker.queue(messages=[b"acked in a transaction"])
    channel = await (await broker.connection()).channel()
    await channel.tx_select()
    delivery = await channel.get(queue)
    channel.ack(delivery.delivery_tag)

    end, ack_stands = ENDINGS[ending]
    back_in_queue = await end(broker, channel, queue)
    check(len(back_in_queue) == (0 if ack_stands else 1),
          f"after {ending} the ack {'stands' if ack_stands else 'is undone and the message requeued'}",
          expected="the message gone" if ack_stands else "the message back in the queue",
          actual=f"{len(back_in_queue)} message(s) back in the queue")
    check(all(d.redelivered for d in back_in_queue), "a message whose ack was undone comes back redelivered",
          expected="redelivered=true", actual=[d.redelivered for d in back_in_queue])
