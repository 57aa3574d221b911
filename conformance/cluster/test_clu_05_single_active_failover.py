"""CLU-05: a single-active-consumer quorum queue led by node 3 has consumer A through node
1 (active) and consumer B through node 2 (waiting). Until A's node dies B gets nothing;
after kill -9 of node 1, B becomes active and receives A's unacked messages flagged
redelivered, then the rest."""

import time

import pytest

from amqp_conformance.fixtures.vocabulary import (CONSUMERS, ELECTION_WINDOW_S, MUST, check, consume_until,
                                                  expect_none, message_ids, observe, publish, receive, rule,
                                                  timeouts, wait_for_confirms as confirms)

RULE = rule("CLU-05", "Single active consumer fails over across nodes when the active consumer's node goes down",
            strength=MUST, guide=CONSUMERS, section="single-active-consumer")

pytestmark = [pytest.mark.fault, pytest.mark.timeout(180)]
MESSAGES, PREFETCH = 6, 3
FAILOVER_WINDOW_S = ELECTION_WINDOW_S + 10  # nodedown, plus 4.3's 5 s consumer-disconnected timeout


async def test_single_active_consumer_fails_over(cluster, history):
    history.fault_name, history.queue_type = "kill -9 of the active consumer's node", "quorum"
    queue = await cluster.quorum_queue(via=2, arguments={"x-single-active-consumer": True})
    channels = []
    for node in (0, 1):  # A first: the first consumer registered is the active one
        channel = await (await cluster.connection(node)).channel()
        await channel.qos(PREFETCH)
        await channel.consume(queue, consumer_tag=f"consumer-n{node + 1}")
        channels.append(channel)
    a, b = channels
    ids = message_ids("clu05", MESSAGES)
    publisher = await (await cluster.connection(2)).channel()
    await publisher.confirm_select()
    publish(publisher, queue, ids)
    await confirms(publisher, set(range(1, MESSAGES + 1)), within=timeouts.REPLY * 5)
    held = await receive(a, PREFETCH)
    early = await receive(b, 1, within=timeouts.NEGATIVE_WINDOW)

    await cluster.kill(0)
    started = time.monotonic()
    seen = await consume_until([b], set(ids), within=FAILOVER_WINDOW_S)
    observe("the waiting consumer took over after", f"{time.monotonic() - started:.1f} s")

    verdict = history.check()
    check(len(held) == PREFETCH and not early, "only the active consumer received before the failover",
          expected=f"A {PREFETCH}, B 0", actual=f"A {len(held)}, B {len(early)}")
    check(seen == set(ids), "after node 1 died, the waiting consumer on node 2 received every message",
          expected=sorted(ids), actual=sorted(seen))
    expect_none(verdict, "unflagged_redeliveries", "what the dead active consumer held comes back flagged")
    expect_none(verdict, "lost", "every confirmed message is delivered")
