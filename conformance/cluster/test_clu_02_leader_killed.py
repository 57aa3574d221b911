"""CLU-02: kill -9 of the node that leads a quorum queue loses no confirmed message. A
new leader is elected on the survivors, a publisher and consumers on the other nodes go
on, and what a consumer on the killed node held unacked comes back flagged redelivered."""

import pytest

from amqp_conformance.fixtures.vocabulary import (ELECTION_WINDOW_S, MUST, QUORUM_QUEUES, check, consume_until,
                                                  expect_none, message_ids, observe, publish, receive, rule,
                                                  timeouts, wait_for_confirms as confirms)

RULE = rule("CLU-02", "Killing the quorum queue's leader loses no confirmed message; consumers go on",
            strength=MUST, guide=QUORUM_QUEUES, section="leader-election")

pytestmark = [pytest.mark.fault, pytest.mark.timeout(180)]
BATCH, HELD = 10, 5
LEADER, OTHERS = 1, (0, 2)
RESUME_WINDOW_S = ELECTION_WINDOW_S + 10  # election, then 4.3's 5 s consumer-disconnected timeout


async def test_no_confirmed_message_lost_when_the_leader_dies(cluster, history):
    history.fault_name, history.queue_type = "kill -9 of the leader's node", "quorum"
    queue = await cluster.quorum_queue(via=LEADER)
    check(await cluster.leader(queue, asking=0) == LEADER, "the queue's leader is where it was declared",
          expected=cluster.names[LEADER], actual=await cluster.leader(queue, asking=0))
    before, after = message_ids("clu02-before", BATCH), message_ids("clu02-after", BATCH)
    publisher = await (await cluster.connection(2)).channel()
    await publisher.confirm_select()
    publish(publisher, queue, before)
    await confirms(publisher, set(range(1, BATCH + 1)), within=timeouts.REPLY * 5)
    holder = await (await cluster.connection(LEADER)).channel()
    await holder.qos(HELD)
    await holder.consume(queue)
    held = await receive(holder, HELD)

    await cluster.kill(LEADER)
    took, leader = await cluster.wait_leader(queue, asking=0, not_on=LEADER)
    observe("new leader elected after", f"{took} s on {leader}" if took is not None else "none within the bound")
    check(took is not None, "the survivors elect a new leader", expected=f"within {ELECTION_WINDOW_S:.0f} s",
          actual="no leader other than the killed node's")
    fresh = await (await cluster.connection(2)).channel()
    await fresh.confirm_select()
    publish(fresh, queue, after)
    await confirms(fresh, set(range(1, BATCH + 1)), within=RESUME_WINDOW_S)
    consumers = []
    for node in OTHERS:
        channel = await (await cluster.connection(node)).channel()
        await channel.qos(10)
        await channel.consume(queue)
        consumers.append(channel)
    seen = await consume_until(consumers, history.confirmed_ids(), within=RESUME_WINDOW_S)

    verdict = history.check()
    check(len(held) == HELD and verdict.confirmed == 2 * BATCH, "a consumer on the leader's node held messages "
          "and every publish was confirmed", expected=f"{HELD} held, {2 * BATCH} confirmed",
          actual=f"{len(held)} held, {verdict.confirmed} confirmed")
    observe("delivered to consumers on the survivors", len(seen))
    expect_none(verdict, "lost", "every confirmed message reaches the consumers on the surviving nodes")
    expect_none(verdict, "unflagged_redeliveries", "what the killed node's consumer held comes back flagged")
