"""Fixtures the project tests share, and how ci/test spreads them over its workers."""

import pytest

from amqp_conformance.fixtures.brokers.managed import RabbitMQNode
from tests.suite_runs import patient


@pytest.fixture(scope="session")
def plain_rabbitmq():
    """One managed RabbitMQ node with the suite's defaults, for wire dialogues and replays.
    One per worker process: every test that uses it creates its own names and deletes them."""
    node = RabbitMQNode()
    with node:  # ManagedBroker's own life cycle: start() on entry, cleanup() on exit
        yield node


@pytest.fixture(scope="session")
def patient_rabbitmq():
    """One managed RabbitMQ node with the patient consumer timeout (tests/suite_runs.py) and
    the management API, which the mutation tests judge the suite on, through a mutant proxy
    in front of it. One per worker process, and every file that uses it goes to one worker
    (WITH_FILE): a node's boot and stop is about 7 s of CPU, and ci/test is CPU-bound. Each
    suite run on it makes its own names and deletes them, one run at a time."""
    node = patient(RabbitMQNode())
    node.management = True  # CON-29 and CON-30 read it beside the proxy (HTTP: no frame crosses it)
    with node:
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
# Seconds of the slow tests in a fresh-clone ci/test (2026-11-29 13:11, at c8d485c, 2 cores, load about 5:
# `ci/test --durations=0`, setup and call): a file's figure is the whole file's, a figure of a
# test (or of the tests its prefix names, in SPREAD_FILES) each one's; a test no figure
# covers counts as one second (unit_costs). The table only orders the units: a stale figure
# costs time, never a verdict.
MEASURED_SECONDS = {
    "tests/mutation/test_mutation_score.py": 185,
    "tests/integration/test_reports_pipeline.py": 285,  # Spark
    "tests/integration/test_reports_end_to_end.py": 260,  # its module fixture: five suite runs and a build
    "tests/mutation/test_node_mutants.py": 100,  # at 6c9f27f: its classic-queue share
    "tests/integration/test_reports_perf.py": 115,
    "tests/integration/test_reports_cluster.py": 115,  # ci/mutation's: the standalone cluster's build
    "tests/mutation/test_cluster_mutants.py::test_every": 160,
    "tests/integration/test_fault_rules.py": 110,
    "tests/integration/test_stored_runs.py": 80,
    "tests/integration/test_packaging.py": 165,
    "tests/integration/test_crash_and_restart.py": 70,
    "tests/integration/test_reproducers.py": 80,  # garagemq's representative share (the rest is ci/mutation's)
    "tests/integration/test_consumer_timeout_at_url.py": 15,  # in ci/test: the rules a URL cannot configure
    "tests/integration/test_tls.py": 90,
    "tests/integration/test_suite_against_brokers.py::test_the_catalogue": 45,
    "tests/integration/test_suite_against_brokers.py::test_garagemq": 60,
    "tests/integration/test_junit_truth.py": 52,
    "tests/integration/test_bad_input.py::test_a_cluster": 40,
    "tests/mutation/test_split_header_mutant.py": 38,
    "tests/mutation/test_fuzzer_catches_a_mutant.py": 41,
    "tests/mutation/test_intermittent_mutant.py": 36,
    "tests/integration/test_baseline_comparison.py": 34,
    "tests/integration/test_reports_views.py": 33,
    "tests/integration/test_broker_watch.py": 33,
    "tests/integration/test_late_silent_close.py": 30,
    "tests/integration/test_cluster_broker.py": 27,
    "tests/unit/test_rule_index.py": 30,
    "tests/integration/test_interrupted_runs.py": 18,
    "tests/integration/test_harness_lag.py": 20,
    "tests/unit/test_runtime_imports.py": 18,
    "tests/unit/test_report_guard.py": 16,
    "tests/integration/test_bad_input.py": 3,
}


def unit_costs(nodeids: list[str]) -> dict[str, float]:
    """Each scheduling unit's seconds: a figure of MEASURED_SECONDS counts once in the
    unit whose tests it covers (a file's figure is the whole file's, not each of its
    tests'), and a test no figure covers one second."""
    figures: dict[str, set[str]] = {}
    cost: dict[str, float] = {}
    for nodeid in nodeids:
        unit = unit_of(nodeid)
        prefixes = [prefix for prefix in MEASURED_SECONDS if nodeid.startswith(prefix)]
        if prefixes:
            figures.setdefault(unit, set()).add(max(prefixes, key=len))
        else:
            cost[unit] = cost.get(unit, 0.0) + 1.0
    for unit, covering in figures.items():
        cost[unit] = cost.get(unit, 0.0) + sum(MEASURED_SECONDS[prefix] for prefix in covering)
    return cost


# Files that go to the worker of another file, to share its session-scoped fixture: the perf
# report's and the views' tests build on the pipeline tests' SparkSession
# (tests/integration/test_reports_pipeline.py `spark`), so one JVM, warm from the first builds,
# serves all three files (in ci/test at 6c9f27f each file started its own: the pipeline's and
# the perf report's 194 s and 134 s of CPU).
# Likewise the mutation tests that judge the suite through a mutant proxy in front of the
# patient node (`patient_rabbitmq`): one node for the four files (they booted four).
PIPELINE_TESTS = "tests/integration/test_reports_pipeline.py"
MUTATION_SCORE = "tests/mutation/test_mutation_score.py"
WITH_FILE = {"tests/integration/test_reports_perf.py": PIPELINE_TESTS,
             "tests/integration/test_reports_views.py": PIPELINE_TESTS,
             "tests/mutation/test_split_header_mutant.py": MUTATION_SCORE,
             "tests/mutation/test_intermittent_mutant.py": MUTATION_SCORE,
             "tests/mutation/test_fuzzer_catches_a_mutant.py": MUTATION_SCORE}


def unit_of(nodeid: str) -> str:
    """The scheduling unit of a test: its file (or the file WITH_FILE names), or itself in
    a file of SPREAD_FILES."""
    path = nodeid.split("::")[0]
    return nodeid if path in SPREAD_FILES else WITH_FILE.get(path, path)


@pytest.hookimpl(optionalhook=True)  # an xdist hook: `pytest tests -p no:xdist` has no such hook
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
    cost = unit_costs([item.nodeid for item in items])
    # Stable: inside a unit the tests keep the order of their file.
    items.sort(key=lambda item: -cost[unit_of(item.nodeid)])
