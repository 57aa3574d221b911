"""Live mutants of the cluster rules: the frame-rewriting proxy of tests/mutant_proxy.py in
front of one node of the managed cluster, so that the cluster behaves like one that
breaks a CLU rule, or PC-19's cluster case (confirms on a node without a replica). The
single-node mutation node cannot host them (tests/mutation/mutants/ lists the CLU rules as
not expressible there); tests/mutation/test_cluster_mutants.py runs them.

Loaded into a suite run as a pytest plugin (`-p tests.mutation.cluster_mutants`, with
`--broker rabbitmq-3.10-cluster -n 0`): every case of a rule a cluster mutant breaks runs
twice in the one session, through the pass-through proxy (the control: its verdict must
not move) and through the mutant. The proxy stands in front of node 2 (index 1), which
every CLU rule uses as a majority node and PC-19 as its publisher's node; a mutant that must
also see node 1 (the queue's, for PC-19) fronts it too (`fronted_nodes`). Each case gets
proxies of its own. What the proxies did is attached to the case as JUnit properties
(`mutant_dropped`, `mutant_proxy_errors`).
"""

from __future__ import annotations

import contextlib
import threading

import pytest
from pamqp import commands as spec

from amqp_conformance.fixtures.vocabulary.cluster import cluster_of
from amqp_conformance.fixtures.vocabulary.current_run import STATE
from tests.frame_proxy import in_front_of
from tests.mutation.mutant_proxy import Identity, MutantProxy
from tests.mutation.mutants.base import Mutant
from tests.mutation.mutants.pc import ConfirmsWaitForConsumerAcks

FRONTED_NODE = 1  # 0-based: node 2, in the majority of every CLU rule's fault; PC-19's publisher's node


def fault_removed(events: list[dict], name: str) -> bool:
    """A history's fault `name` was applied and removed again (the heal)."""
    return any(e["kind"] == "fault" and e["name"] == name and e["phase"] == "removed" for e in list(events))


class DeliveryLostAfterHeal(Mutant):
    """Once the partition has healed, the first delivery of a message this node had
    confirmed never reaches the client; for a manual-ack consumer the proxy acks it to
    the broker, so the broker too counts it consumed: a confirmed message lost at the heal."""

    breaks = ("CLU-03",)

    def __init__(self) -> None:
        self.healed = lambda: False  # set by the plugin: has the test's partition healed?
        self.dropped: str | None = None
        self._confirmed: set[str] = set()
        self._pending: dict[tuple[int, int, int], str] = {}  # (link, channel, seq) -> message id
        self._lock = threading.Lock()  # one proxy thread, but links interleave

    def from_client(self, link, cmd):
        channel = link.tracker.channel(cmd.channel)
        if isinstance(cmd.method, spec.Basic.Publish) and channel.mode == "confirm" and cmd.properties:
            self._pending[(link.id, cmd.channel, channel.next_seq)] = cmd.properties.message_id
        return None

    def from_broker(self, link, cmd):
        m, channel = cmd.method, link.tracker.channel(cmd.channel)
        if isinstance(m, spec.Basic.Ack) and channel.mode == "confirm":
            seqs = [s for s in channel.unresolved if s <= m.delivery_tag] if m.multiple else [m.delivery_tag]
            with self._lock:
                self._confirmed.update(self._pending.pop((link.id, cmd.channel, s), None) for s in seqs)
        elif isinstance(m, spec.Basic.Deliver) and cmd.properties:
            with self._lock:
                if self.dropped or not self.healed() or cmd.properties.message_id not in self._confirmed:
                    return None
                self.dropped = cmd.properties.message_id
            if not channel.consumers.get(m.consumer_tag, False):
                link.to_broker(cmd.channel, spec.Basic.Ack(delivery_tag=m.delivery_tag))
            return []
        return None


class ConfirmsWaitForConsumerAcksAcrossNodes(ConfirmsWaitForConsumerAcks):
    """confirms_wait_for_consumer_acks across the cluster: a publisher's confirms on node 2
    are held back while a consumer connected to node 1, where the queue lives, holds a
    delivery unacked. One mutant stands in front of both nodes, so it sees the consumer's
    deliveries on one and the publisher's confirms on the other."""

    breaks = ("PC-19",)
    fronted_nodes = (0, FRONTED_NODE)

    def __init__(self) -> None:
        self.proxies: list[MutantProxy] = []  # set by the plugin: one per fronted node
        self.dropped: str | None = None

    def watched_links(self, link):
        return [other for proxy in self.proxies for other in proxy.links]

    def held_back(self, link, channel) -> None:
        self.dropped = "confirms held back while a consumer on another node held deliveries unacked"


CLUSTER_MUTANTS: dict[str, Mutant] = {m.name: m for m in (DeliveryLostAfterHeal(),
                                                          ConfirmsWaitForConsumerAcksAcrossNodes())}
PASS_THROUGH = Identity.name
CLUSTER_FIXTURES = {"cluster", "cluster_nodes"}  # a case that reaches the nodes (amqp_conformance.fixtures.vocabulary.cluster)


def fronted_nodes(rule_id: str) -> list[int]:
    """The nodes a rule's cases reach through a proxy: every node one of its mutants fronts
    (the pass-through control fronts the same ones)."""
    return sorted({i for m in CLUSTER_MUTANTS.values() if rule_id in m.breaks
                   for i in getattr(m, "fronted_nodes", (FRONTED_NODE,))})


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    rule = getattr(metafunc.module, "RULE", None)
    if rule is None or not CLUSTER_FIXTURES & set(metafunc.fixturenames):
        return  # a cluster run's single-node cases (PC-19's own) reach no fronted node
    fronts = [PASS_THROUGH] + [name for name, m in CLUSTER_MUTANTS.items() if rule.id in m.breaks]
    if len(fronts) > 1:
        metafunc.parametrize("cluster_front", fronts, indirect=True)


@pytest.fixture(autouse=True)
def cluster_front(request: pytest.FixtureRequest):
    """The proxies in front of the rule's fronted nodes for a case of a rule a cluster mutant breaks."""
    name = getattr(request, "param", None)
    managed = cluster_of(request.config.stash[STATE])
    if name is None or managed is None:
        yield None
        return
    mutation = type(CLUSTER_MUTANTS[name])() if name != PASS_THROUGH else Identity()
    if isinstance(mutation, DeliveryLostAfterHeal):
        history = request.getfixturevalue("history")
        mutation.healed = lambda: fault_removed(history.events, "partition")
    with contextlib.ExitStack() as stack:
        proxies = []
        for index in fronted_nodes(request.module.RULE.id):
            proxies.append(stack.enter_context(in_front_of(managed.nodes[index], mutation)))
        if hasattr(mutation, "proxies"):
            mutation.proxies = proxies
        try:
            yield proxies
        finally:
            request.node.user_properties.append(("mutant_dropped", getattr(mutation, "dropped", None) or "-"))
            request.node.user_properties.append(("mutant_proxy_errors",
                                                 "; ".join(e for p in proxies for e in p.errors) or "-"))
