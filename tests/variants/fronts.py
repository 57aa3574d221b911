"""Conforming variants in front of the suite's own nodes, for the cases an --amqp-url proxy
cannot reach (ci/variants --own-nodes): a managed cluster's nodes (the CLU rules, PC-19's
no-replica case) and the worker's patient and dedicated nodes (CON-24, CON-25, PC-18 and
the kill -9 rules). Without it those cases are unsupported at the proxy's URL, and a
variant cannot move an unsupported case.

Loaded into a suite run as a pytest plugin (`-p tests.variants.fronts`, with `--broker NAME
-p no:xdist`) and told the variant by AMQPC_VARIANT (a name of tests/variants/, or
"pass-through"): every case that uses such a node gets a proxy of its own in front of
each node it reaches, rewriting as the variant does; the suite's clients reach the node
through it (the node's `front`) while the node's own checks,
restarts, rabbitmqctl and Toxiproxy's links between cluster nodes go to the nodes
themselves. What the proxies got wrong is the JUnit property `variant_proxy_errors`.
"""

from __future__ import annotations

import contextlib
import os

import pytest

from amqp_conformance.fixtures.vocabulary.cluster import cluster_of
from amqp_conformance.fixtures.vocabulary.current_run import STATE
from tests.frame_proxy import Rewrite, in_front_of
from tests.mutation.cluster_mutants import CLUSTER_FIXTURES
from tests.mutation.node_mutants import NODE_FIXTURES
from tests.variants import VARIANTS

VARIANT_ENV = "AMQPC_VARIANT"
PASS_THROUGH = Rewrite.name


def rewrite_named(name: str) -> Rewrite:
    """A fresh rewrite for one proxy: the variant's, or none for the pass-through."""
    return Rewrite() if name == PASS_THROUGH else type(VARIANTS[name])()


def pytest_configure(config: pytest.Config) -> None:
    name = os.environ.get(VARIANT_ENV, "")
    if name != PASS_THROUGH and name not in VARIANTS:
        raise pytest.UsageError(f"{VARIANT_ENV}={name!r}: not {PASS_THROUGH} nor a variant ({', '.join(VARIANTS)})")


@pytest.fixture(autouse=True)
def variant_fronts(request: pytest.FixtureRequest):
    """Proxies rewriting as the run's variant in front of every own node the case reaches."""
    name = os.environ[VARIANT_ENV]
    nodes = [request.getfixturevalue(node) for broker, node in NODE_FIXTURES.items() if broker in request.fixturenames]
    cluster = cluster_of(request.config.stash[STATE]) if CLUSTER_FIXTURES & set(request.fixturenames) else None
    if not nodes and cluster is None:
        yield []
        return
    with contextlib.ExitStack() as stack:
        proxies = []
        for node in [*nodes, *(cluster.nodes if cluster else [])]:
            proxies.append(stack.enter_context(in_front_of(node, rewrite_named(name))))
        try:
            yield proxies
        finally:
            request.node.user_properties.append(("variant_proxy_errors",
                                                 "; ".join(e for p in proxies for e in p.errors) or "-"))
