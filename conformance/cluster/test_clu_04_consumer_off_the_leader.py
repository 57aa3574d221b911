"""CLU-04: a consumer connected to a node that does not lead the quorum queue gets the
single-node guarantees: what it acked is never delivered again, and what it held
unacked when its connection was lost is requeued and delivered, flagged redelivered,
to a consumer on a third node. (The consumer timeout from such a node is not covered yet.)"""

import pytest

from amqp_faults.workloads import confirms, message_ids, publish
from fixtures import MUST, check, consume_until, receive, rule, timeouts
from fixtures.history import expect_none
from fixtures.rules import QUORUM_QUEUES

RULE = rule("CLU-04", "Acks and requeue on connection loss hold for a consumer on a non-leader node",
            strength=MUST, guide=QUORUM_QUEUES, section="behaviour")

pytestmark = [pytest.mark.fault, pytest.mark.timeout(180)]
MESSAGES, ACKED = 6, 3


async def test_acks_and_requeue_off_the_leader(cluster, history):
    history.fault_name, history.queue_type = "consumer on a follower loses its connection", "quorum"
    queue = await cluster.quorum_queue(via=0)
    ids = message_ids("clu04", MESSAGES)
    publisher = await (await cluster.connection(0)).channel()
    await publisher.confirm_select()
    publish(publisher, queue, ids)
    await confirms(publisher, set(range(1, MESSAGES + 1)), within=timeouts.REPLY * 5)
    follower = await cluster.connection(1)
    channel = await follower.channel()
    await channel.consume(queue)
    got = await receive(channel, MESSAGES)
    for delivery in got[:ACKED]:
        channel.ack(delivery.delivery_tag)
    await channel.barrier()  # the acks are in before the connection goes
    history.fault("connection lost", "applied", f"consumer's TCP connection to {cluster.names[1]} aborted")
    follower.abort()
    other = await (await cluster.connection(2)).channel()
    await other.consume(queue)
    await consume_until([other], history.confirmed_ids() - {d.message_id for d in got[:ACKED]},
                        within=timeouts.REPLY * 3)

    verdict = history.check()
    check(len(got) == MESSAGES, "the follower's consumer received every message first",
          expected=MESSAGES, actual=len(got))
    expect_none(verdict, "acked_redelivered", "a message acked through a follower is never delivered again")
    expect_none(verdict, "not_redelivered", "what the lost consumer held is delivered again")
    expect_none(verdict, "unflagged_redeliveries", "and flagged redelivered")
    expect_none(verdict, "lost", "every confirmed message is delivered")
