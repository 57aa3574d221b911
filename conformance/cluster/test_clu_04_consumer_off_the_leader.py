"""CLU-04: a consumer connected to a node that does not lead the quorum queue gets the
single-node guarantees: what it acked is never delivered again; what it held unacked
when its connection was lost, or past the consumer timeout, is requeued and delivered,
flagged redelivered, to a consumer on a third node. The timeout action is CON-10's, by
version: the channel closed with 406, or (4.3 quorum queues) a basic.cancel. No fault
is injected: this also runs on a cluster at --amqp-url (one URL per node)."""

import time

import pytest

from amqp_conformance.fixtures.vocabulary import (CONSUMER_TIMED_OUT, MUST, QUORUM_QUEUES, Reply,
                                                  await_timeout_action, check, consume_until, expect_closed,
                                                  expect_none, message_ids, observe, publish, receive, rule,
                                                  timeouts, wait_for_confirms as confirms)

RULE = rule("CLU-04", "Acks, requeue on connection loss and the consumer timeout hold for a consumer on a "
            "non-leader node", strength=MUST, guide=QUORUM_QUEUES, section="behaviour")

pytestmark = [pytest.mark.fault, pytest.mark.timeout(180)]
MESSAGES, ACKED, HELD = 6, 3, 2
LEADER, FOLLOWER, THIRD = 0, 1, 2


async def published(cluster, ids) -> str:
    """A quorum queue led by node 1 holding `ids`, confirmed."""
    queue = await cluster.quorum_queue(via=LEADER)
    leader = await cluster.leader(queue, asking=LEADER)
    observe("queue leader", cluster.names[leader] if leader is not None else
            f"not visible over AMQP; declared through {cluster.names[LEADER]} (client-local placement)")
    publisher = await (await cluster.connection(LEADER)).channel()
    await publisher.confirm_select()
    publish(publisher, queue, ids)
    await confirms(publisher, set(range(1, len(ids) + 1)), within=timeouts.REPLY * 5)
    return queue


async def taken_over_on_the_third_node(cluster, history, queue, settled=frozenset()):
    other = await (await cluster.connection(THIRD)).channel()
    await other.consume(queue)
    await consume_until([other], history.confirmed_ids() - settled, within=timeouts.REPLY * 3)
    verdict = history.check()
    expect_none(verdict, "not_redelivered", "what the follower's consumer held is delivered again")
    expect_none(verdict, "unflagged_redeliveries", "and flagged redelivered")
    expect_none(verdict, "lost", "every confirmed message is delivered")
    return verdict


@pytest.mark.case("connection-loss")
async def test_acks_and_requeue_off_the_leader(cluster_nodes, history):
    cluster = cluster_nodes
    history.fault_name, history.queue_type = "consumer on a follower loses its connection", "quorum"
    queue = await published(cluster, message_ids("clu04", MESSAGES))
    follower = await cluster.connection(FOLLOWER)
    channel = await follower.channel()
    await channel.consume(queue)
    got = await receive(channel, MESSAGES)
    for delivery in got[:ACKED]:
        channel.ack(delivery.delivery_tag)
    await channel.barrier()  # the acks are in before the connection goes
    history.fault("connection lost", "applied", f"consumer's TCP connection to {cluster.names[FOLLOWER]} aborted")
    follower.abort()

    check(len(got) == MESSAGES, "the follower's consumer received every message first",
          expected=MESSAGES, actual=len(got))
    verdict = await taken_over_on_the_third_node(cluster, history, queue, {d.message_id for d in got[:ACKED]})
    expect_none(verdict, "acked_redelivered", "a message acked through a follower is never delivered again")


@pytest.mark.case("consumer-timeout")
async def test_consumer_timeout_off_the_leader(cluster_nodes, history):
    cluster = cluster_nodes
    history.fault_name, history.queue_type = "consumer on a follower past the consumer timeout", "quorum"
    timed = cluster.consumer_timeout(FOLLOWER)
    queue = await published(cluster, message_ids("clu04-timeout", HELD))
    channel = await (await cluster.connection(FOLLOWER)).channel()
    await channel.consume(queue)
    got = await receive(channel, HELD)
    held_since = time.monotonic()
    check(len(got) == HELD, "the follower's consumer holds every message unacked", expected=HELD, actual=len(got))
    action = await await_timeout_action(timed, channel, "quorum", held_since=held_since)
    if isinstance(action, Reply):
        observe("outcome seen", "channel closed")
        await expect_closed(channel, code=406, text=CONSUMER_TIMED_OUT,
                            requirement="the follower's consumer loses its channel with PRECONDITION_FAILED")
    else:
        observe("outcome seen", "basic.cancel, channel open (RabbitMQ 4.3 quorum queues)")
    await taken_over_on_the_third_node(cluster, history, queue)
