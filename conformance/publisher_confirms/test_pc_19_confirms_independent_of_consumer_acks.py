"""PC-19: publisher confirms do not depend on consumer acknowledgements (the guide calls
the two features orthogonal): while a consumer of the queue holds every delivery
unacked, the broker still acks every new publish to that queue. A broker that confirms
a message only once it was consumed and acked fails. In cluster runs the same holds for a
publisher connected to a node that holds no replica of the queue (`no-replica`: a queue with
one replica, the publisher on a node the cluster says holds none); on one node, or where the
suite cannot read the placement (a cluster at --amqp-url), that case is unsupported."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, QUEUE_TYPES, ConfirmLedger, check,
                                                  expect_deliveries, expect_open, observe, rule, unsupported)

RULE = rule("PC-19", "Publish confirms arrive while a consumer holds every delivery of the queue unacked",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms", requires=("confirms",))

HELD, MORE = 3, 5
HOME = 0  # the node the queue is declared through
# One replica only: a classic queue is never replicated, a quorum queue of one member; where
# it sits is read from the cluster (Cluster.replicas), never assumed from where it was declared.
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
    replicas = await cluster.replicas(queue, asking=HOME)
    if replicas is None:
        unsupported("the case needs to know which nodes hold the queue's replicas, which the suite reads only "
                    "on a cluster it runs", f"the cluster's nodes ({', '.join(cluster.names)}) show no placement "
                    "over AMQP")
    observe("the queue's replicas", ", ".join(cluster.names[i] for i in replicas))
    elsewhere = next((i for i in range(len(cluster.nodes)) if i not in replicas), None)
    if elsewhere is None:
        unsupported("every node holds a replica of the queue: no node without one to publish through",
                    f"declared through {cluster.names[HOME]} with {ONE_REPLICA[queue_type]}; replicas on "
                    f"{', '.join(cluster.names[i] for i in replicas)}")
    consumer = await (await cluster.connection(replicas[0])).channel()
    await hold_every_delivery(consumer, queue)
    publisher = await (await cluster.connection(elsewhere)).channel()
    observe("publisher's node", f"{cluster.names[elsewhere]}, holding no replica of the queue")
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
