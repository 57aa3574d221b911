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


# ci/test runs with `--dist loadfile --no-loadscope-reorder`, and this file gives it its
# scheduler: a file stays on one worker, so a broker node or a built report its tests share
# (a module-scoped fixture) starts once; but each test of a file in SPREAD_FILES (slow
# tests that share nothing) is a unit of its own, so two of them can run at the same time.
# (`--dist loadgroup` would do this by marker, but xdist 3.8 renames the node id that
# pytest 9 no longer reads, and every test becomes a unit of its own.) The units are handed
# out in the order of the collection, which each worker sorts here longest first, so no
# worker starts a long test while the others run out of work.
SPREAD_FILES = frozenset({
    "tests/integration/test_suite_against_brokers.py",
    "tests/integration/test_fault_rules.py",
    "tests/integration/test_bad_input.py",
    "tests/integration/test_cluster_broker.py",
    "tests/integration/test_interrupted_runs.py",
    "tests/integration/test_harness_lag.py",
    "tests/integration/test_consumer_timeout_at_url.py",
    "tests/integration/test_reproducers.py",
})
# Seconds per test on 2 cores at load 20-80 (ci/test, 2026-11-28; for the tests that run
# did not reach, docs/measurements.md's quiet figures times three): a test not listed counts
# as one second. The table only orders the units; a stale figure costs time, never a verdict.
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


def measured_seconds(nodeid: str) -> float:
    prefixes = [prefix for prefix in MEASURED_SECONDS if nodeid.startswith(prefix)]
    return MEASURED_SECONDS[max(prefixes, key=len)] if prefixes else 1.0


def unit_of(nodeid: str) -> str:
    """The scheduling unit of a test: its file, or itself in a file of SPREAD_FILES."""
    path = nodeid.split("::")[0]
    return nodeid if path in SPREAD_FILES else path


def pytest_xdist_make_scheduler(config: pytest.Config, log):
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class ByUnit(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid)

    return ByUnit(config, log)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not hasattr(config, "workerinput"):  # a run without workers keeps the files' order
        return
    cost: dict[str, float] = {}
    for item in items:
        cost[unit_of(item.nodeid)] = cost.get(unit_of(item.nodeid), 0.0) + measured_seconds(item.nodeid)
    # Stable: inside a unit the tests keep the order of their file.
    items.sort(key=lambda item: -cost[unit_of(item.nodeid)])
