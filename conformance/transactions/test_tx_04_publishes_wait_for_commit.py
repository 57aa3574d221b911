"""TX-04: messages published in a transaction reach their queue only at tx.commit;
tx.rollback discards them, and so does closing the channel before a commit."""

import pytest
from pamqp.commands import Tx

from fixtures import CONFIRMS, MUST, check, rule

RULE = rule("TX-04", "Publishes in a transaction are invisible until commit; rollback and close discard them",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms", requires=("tx",))


async def commit(channel):
    await channel.call(Tx.Commit(), Tx.CommitOk)


async def rollback(channel):
    await channel.call(Tx.Rollback(), Tx.RollbackOk)


async def close(channel):
    await channel.close()


# ending -> messages the queue holds afterwards
ENDINGS = {"commit": (commit, 1), "rollback": (rollback, 0), "channel-close": (close, 0)}


@pytest.mark.parametrize("ending", ENDINGS)
async def test_publish_in_a_transaction_lands_only_on_commit(broker, ending):
    queue = await broker.queue()
    connection = await broker.connection()
    channel = await connection.channel()
    await channel.tx_select()
    channel.publish(b"in a transaction", routing_key=queue)
    # A get on the same channel is handled after the publish: an uncommitted message
    # must not be there.
    check(await channel.get(queue, no_ack=True) is None, "a message published in a transaction is invisible "
          "before commit", expected="basic.get-empty", actual="basic.get-ok")

    end, held_after = ENDINGS[ending]
    await end(channel)
    looking = channel if channel.is_open else await connection.channel()
    found = [d.body for d in [await looking.get(queue, no_ack=True)] if d is not None]
    check(len(found) == held_after, f"after {ending} the queue holds {held_after} of the transaction's messages",
          expected=held_after, actual=found)
