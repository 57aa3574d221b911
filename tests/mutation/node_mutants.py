"""Live mutants of the rules judged only on a node the suite configures, reaches into or
restarts (their declarations' `needs=`: CON-24 and CON-25 on the patient node's settings,
PC-18 on its queue processes, PC-10, TX-10 and FLT-08 on a node they kill -9). Through an
--amqp-url proxy those rules are unsupported, so tests/mutation/test_mutation_score.py
cannot judge their mutants; here the proxy stands in front of the suite's own node instead.

Loaded into a suite run as a pytest plugin (`-p tests.mutation.node_mutants`, with
`--broker NAME -p no:xdist`): every case of such a rule whose test uses a broker on one
of the worker's own nodes (NODE_FIXTURES) runs once through the pass-through proxy (the control:
its verdict must not move) and once through each mutant that breaks the rule. The proxy
is the node's `front` for that case alone: the suite's clients reach the node through it,
while the node's own checks (started, answering after a restart) and rabbitmqctl go to
the node itself. What the proxy got wrong is attached as the JUnit property
`mutant_proxy_errors`.
"""

from __future__ import annotations

import pytest

from amqp_conformance.fixtures.core.rules import REGISTRY
from tests.frame_proxy import in_front_of
from tests.mutation.mutant_proxy import Identity
from tests.mutation.mutants import MUTANTS

# A test's broker on a node the worker starts -> that node (amqp_conformance.fixtures.vocabulary:
# consumer_timeouts' patient node, dedicated's node of a module's own). The broker fixtures
# ask for their node at run time, so a test's fixture closure names only the broker.
NODE_FIXTURES = {"patient_broker": "patient_node", "queue_policy": "patient_node", "crashable_broker": "dedicated_node"}
PASS_THROUGH = Identity.name


def node_rules() -> set[str]:
    """The rules judged only on a node of the suite's own (their `needs=`), and those a
    mutant breaks through a setting the suite makes there (its `own_node`: CON-27's policy)."""
    return ({declared.id for declared in REGISTRY.values() if declared.needs}
            | {rule for mutant in MUTANTS.values() if mutant.own_node for rule in mutant.breaks})


def node_mutants() -> dict[str, object]:
    """The catalogue's mutants that break at least one of those rules, by name."""
    rules = node_rules()
    return {name: mutant for name, mutant in MUTANTS.items() if rules & set(mutant.breaks)}


@pytest.hookimpl(trylast=True)  # after the suite's own selection
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Only the cases judged on a node of the suite's own: a node rule's module may also
    hold a case on the plain broker (EX-13 declares both kinds of exchange on any broker,
    then restarts a node of its own), which no node mutant reaches and the catalogue's
    mutation score judges."""
    on_a_node = [item for item in items if set(NODE_FIXTURES) & set(getattr(item, "fixturenames", ()))]
    if len(on_a_node) < len(items):
        config.hook.pytest_deselected(items=[item for item in items if item not in on_a_node])
        items[:] = on_a_node


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    rule = getattr(metafunc.module, "RULE", None)
    if rule is None or rule.id not in node_rules() or not set(NODE_FIXTURES) & set(metafunc.fixturenames):
        return
    fronts = [PASS_THROUGH] + [name for name, mutant in node_mutants().items() if rule.id in mutant.breaks]
    metafunc.parametrize("node_front", fronts, indirect=True)


@pytest.fixture(autouse=True)
def node_front(request: pytest.FixtureRequest):
    """The proxy in front of the worker's node for a case of a rule a node mutant breaks."""
    name = getattr(request, "param", None)
    if name is None:
        yield None
        return
    (fixture,) = [node for broker, node in NODE_FIXTURES.items() if broker in request.fixturenames]
    node = request.getfixturevalue(fixture)
    mutation = Identity() if name == PASS_THROUGH else type(node_mutants()[name])()
    with in_front_of(node, mutation) as proxy:
        try:
            yield proxy
        finally:
            request.node.user_properties.append(("mutant_proxy_errors", "; ".join(proxy.errors) or "-"))
