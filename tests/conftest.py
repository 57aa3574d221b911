"""Fixtures the project tests share, and how ci/test spreads them over its workers."""

import pytest

from amqp_conformance.fixtures.brokers.managed import RabbitMQNode


@pytest.fixture(scope="session")
def plain_rabbitmq():
    """One managed RabbitMQ node with the suite's defaults, for wire dialogues and replays.
    One per worker process: every test that uses it creates its own names and deletes them."""
    node = RabbitMQNode()
    with node:  # ManagedBroker's own life cycle: start() on entry, cleanup() on exit
        yield node


# ci/test runs with `--dist loadgroup --no-loadscope-reorder`: a group of tests stays on one
# worker, and the groups are handed out in the order of the collection. A file whose tests
# share a module-scoped fixture (a broker node, a built report) is one group, so the fixture
# starts once; so are the files that share the session's SparkSession. Any other test is a
# group of its own, so the two tests of a slow file can run at the same time. The groups
# are ordered longest first, so no worker starts a long test while the other one runs out
# of work. Seconds per test on 2 cores at load 20-80 (ci/test, 2026-11-28; for the tests
# that run did not reach, docs/measurements.md's quiet figures times three): a test not
# listed counts as one second. The table only orders the groups; a stale figure costs
# time, never a verdict.
MEASURED_SECONDS = {
    "tests/integration/test_reports_end_to_end.py": 120,  # its module fixture: five suite runs and a build
    "tests/integration/test_reports_pipeline.py": 60,  # Spark on a loaded machine
    "tests/integration/test_reports_views.py": 60,
    "tests/integration/test_reports_perf.py": 20,
    "tests/integration/test_reports_cluster.py": 150,
    "tests/integration/test_reproducers.py": 500,
    "tests/mutation/test_mutation_score.py": 300,
    "tests/mutation/test_node_mutants.py": 300,
    "tests/mutation/test_cluster_mutants.py::test_every": 300,
    "tests/integration/test_fault_rules.py": 300,
    "tests/integration/test_suite_against_brokers.py::test_the_catalogue": 150,
    "tests/integration/test_suite_against_brokers.py::test_garagemq": 150,
    "tests/integration/test_cluster_broker.py": 200,
    "tests/integration/test_bad_input.py::test_a_cluster": 100,
    "tests/integration/test_packaging.py": 75,
    "tests/integration/test_interrupted_runs.py": 60,
    "tests/integration/test_consumer_timeout_at_url.py": 120,
    "tests/integration/test_late_silent_close.py": 100,
    "tests/integration/test_harness_lag.py": 60,
    "tests/integration/test_tls.py": 20,
    "tests/integration/test_bad_input.py": 20,
    "tests/unit/test_rules_registry.py": 10,
    "tests/unit/test_junit_truth.py": 15,
}
SHARED_SESSION_FIXTURES = {"spark": "the SparkSession"}  # started once per worker that uses them


def measured_seconds(item: pytest.Item) -> float:
    prefixes = [prefix for prefix in MEASURED_SECONDS if item.nodeid.startswith(prefix)]
    return MEASURED_SECONDS[max(prefixes, key=len)] if prefixes else 1.0


def group_of(item: pytest.Item) -> str:
    """The xdist group of a test: what it shares with other tests, or itself."""
    fixture_defs = getattr(item, "_fixtureinfo", None)
    shared = fixture_defs.name2fixturedefs if fixture_defs else {}
    for name in SHARED_SESSION_FIXTURES:
        if name in shared:
            return f"session-{name}"
    for definitions in shared.values():
        for definition in definitions:
            if definition.scope in ("module", "package") and definition.baseid.startswith("tests"):
                return item.nodeid.split("::")[0]
    return item.nodeid


@pytest.hookimpl(tryfirst=True)  # before xdist's worker reads the groups off the items
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("dist", "no") != "loadgroup":
        return
    cost: dict[str, float] = {}
    for item in items:
        if not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(group_of(item)))
        group = item.get_closest_marker("xdist_group").args[0]
        cost[group] = cost.get(group, 0.0) + measured_seconds(item)
    # Stable: inside a group the tests keep the order of their file.
    items.sort(key=lambda item: -cost[item.get_closest_marker("xdist_group").args[0]])
