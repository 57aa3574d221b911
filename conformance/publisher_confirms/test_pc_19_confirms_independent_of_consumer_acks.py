"""PC-19: publisher confirms do not depend on consumer acknowledgements (the guide calls
the two features orthogonal): while a consumer of the queue holds every delivery
unacked, the broker still acks every new publish to that queue. A broker that confirms
a message only once it was consumed and acked fails. In cluster runs the same holds for a
publisher connected to a node that holds no replica of the queue (`no-replica`: the queue
lives on node 1 alone, the publisher is on node 2); on one node that case is unsupported."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, QUEUE_TYPES, ConfirmLedger, check,
                                                  expect_deliveries, expect_open, observe, rule)

RULE = rule("PC-19", "Publish confirms arrive while a consumer holds every delivery of the queue unacked",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms", requires=("confirms",))

HELD, MORE = 3, 5
HOME, ELSEWHERE = 0, 1  # the node holding the queue's only replica; the publisher's node
# Only the declaring node holds the queue: a classic queue is never replicated and is placed
# on the declaring node (client-local); a quorum queue of one member is placed there too.
ONE_REPLICA = {"quorum": {"x-quorum-initial-group-size": 1}, "classic": None}


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_confirms_arrive_while_every_delivery_is_unacked(broker, queue_type):
    queue = await broker.queue(queue_type, messages=[b"held-%d" % n for n in range(HELD)])
    consumer = await (await broker.connection()).channel()
    await hold_every_delivery(consumer, queue)
    async with broker.channel() as publisher:
        await every_publish_is_acked(publisher, queue, "while the queue's consumer holds all its deliveries unacked")
    await expect_open(consumer, "the consumer still holds its deliveries (its channel open)")


@pytest.mark.cluster
@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
@pytest.mark.case("no-replica")
async def test_confirms_arrive_on_a_node_without_a_replica(cluster_nodes, queue_type):
    cluster = cluster_nodes
    queue = await cluster.nodes[HOME].queue(queue_type, messages=[b"held-%d" % n for n in range(HELD)],
                                            arguments=ONE_REPLICA[queue_type])
    leader = await cluster.leader(queue, asking=HOME) if queue_type == "quorum" else HOME
    observe("queue's only replica", f"{cluster.names[HOME]} (declared there)" if leader == HOME else
            f"{cluster.names[HOME]} (declared there; its leader is not visible over AMQP)" if leader is None else
            f"declared through {cluster.names[HOME]}, yet led by {cluster.names[leader]}")
    consumer = await (await cluster.connection(HOME)).channel()
    await hold_every_delivery(consumer, queue)
    publisher = await (await cluster.connection(ELSEWHERE)).channel()
    observe("publisher's node", f"{cluster.names[ELSEWHERE]}, holding no replica of the queue")
    await every_publish_is_acked(publisher, queue, "through a node without a replica while the queue's consumer "
                                 "holds all its deliveries unacked")
    await expect_open(consumer, "the consumer still holds its deliveries (its channel open)")


async def hold_every_delivery(consumer, queue: str) -> None:
    await consumer.qos(HELD)  # full with the held ones: the new publishes stay queued, unconsumed
    await consumer.consume(queue)
    await expect_deliveries(consumer, HELD, "deliveries the consumer then holds unacked")
    observe("unacked deliveries while publishing", HELD)


async def every_publish_is_acked(publisher, queue: str, when: str) -> None:
    ledger = ConfirmLedger()
    await publisher.confirm_select()
    for n in range(MORE):
        ledger.send(publisher, b"more-%d" % n, routing_key=queue)
    await ledger.collect(publisher)
    acked = [seq for seq, kinds in ledger.resolution.items() if kinds[0].startswith("ack")]
    check(len(acked) == MORE and not ledger.problems, f"every publish is acked {when}",
          expected=f"ack of 1-{MORE}", actual=ledger.history())
