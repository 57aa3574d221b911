"""CLU-01: a message to a quorum queue is confirmed only once a quorum of its replicas
accepted it. With two of the three nodes killed, the leader's node (still up, still
serving its clients) confirms nothing published meanwhile, on a channel that already
published to the queue and on a fresh one; a basic.nack or a closed channel is allowed.
Once the two nodes are back, every message confirmed at any time is delivered."""

import asyncio

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, QUORUM_QUEUES, check, confirmed_while, drain_queue,
                                                  expect_none, message_ids, observe, publish, rule, timeouts,
                                                  wait_for_confirms as confirms)

RULE = rule("CLU-01", "With the majority of a quorum queue's members stopped, publishes are not confirmed",
            strength=MUST, guide=QUORUM_QUEUES, section="what-is-a-quorum")

pytestmark = [pytest.mark.fault, pytest.mark.timeout(180)]
BEFORE, DURING = 10, 5
# How long the minority is watched for a confirm. The first publish of a fresh channel
# waits up to net_ticktime + 5 s for the enqueuer registration, then is nacked.
MINORITY_WINDOW_S = 5.0


async def test_the_leader_alone_confirms_nothing(cluster, history):
    history.fault_name, history.queue_type = "kill -9 of two of three nodes", "quorum"
    queue = await cluster.quorum_queue(via=0)
    used = await (await cluster.connection(0)).channel()
    await used.confirm_select()
    publish(used, queue, message_ids("clu01-before", BEFORE))
    await confirms(used, set(range(1, BEFORE + 1)), within=timeouts.REPLY * 5)
    check(len(history.confirmed_ids()) == BEFORE, "the whole cluster confirms (positive control)",
          expected=f"{BEFORE} confirmed", actual=len(history.confirmed_ids()))

    await cluster.kill(1, 2)
    fresh = await (await cluster.connection(0)).channel()
    await fresh.confirm_select()
    during = message_ids("clu01-used", DURING) + message_ids("clu01-fresh", DURING)
    publish(used, queue, during[:DURING])
    publish(fresh, queue, during[DURING:])
    await asyncio.sleep(0)  # the frames leave; the window below is the bounded negative check
    await asyncio.gather(confirms(used, set(range(BEFORE + 1, BEFORE + DURING + 1)), within=MINORITY_WINDOW_S),
                         confirms(fresh, set(range(1, DURING + 1)), within=MINORITY_WINDOW_S))
    await cluster.restart(1, 2)
    # Pending publishes may be confirmed after the majority is back; those must be delivered too.
    await asyncio.gather(confirms(used, set(range(BEFORE + 1, BEFORE + DURING + 1)), within=timeouts.REPLY * 5),
                         confirms(fresh, set(range(1, DURING + 1)), within=timeouts.REPLY * 5))
    await drain_queue(cluster.nodes[0], history, queue, expect=history.confirmed_ids(), within=timeouts.REPLY * 5)

    verdict = history.check()
    observe("outcome of the minority publishes", f"nacked {verdict.nacked}, confirmed after the restart "
            f"{len(history.confirmed_ids()) - BEFORE}, unconfirmed {BEFORE + 2 * DURING - verdict.confirmed - verdict.nacked}")
    wrongly = confirmed_while(history.events, set(during), "kill -9")
    check(not wrongly, "nothing published while two of three members were down is confirmed before they return",
          expected="no basic.ack for them", actual=wrongly)
    expect_none(verdict, "lost", "every confirmed message is delivered once the majority is back")
