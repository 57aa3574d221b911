"""The planned selection (fixtures/plugin/selection.py): the worker count follows the number of
selected cases, and the counting child sees the run's own selection without its outputs
or worker options."""

import pytest

from amqp_conformance.fixtures.plugin.selection import (CASES_PER_WORKER, SERIAL_UP_TO, counting_args,
                                                        default_workers, workers_for)


@pytest.mark.parametrize("cases, workers", [
    (1, 0), (SERIAL_UP_TO, 0), (SERIAL_UP_TO + 1, 2), (2 * CASES_PER_WORKER, 2),
    (3 * CASES_PER_WORKER, 3), (10_000, default_workers()),
])
def test_the_worker_count_follows_the_selected_cases(cases, workers):
    assert workers_for(cases) == workers


def test_the_counting_child_keeps_the_selection_and_drops_outputs_and_workers():
    args = ["conformance", "-n", "auto", "-k", "ACK-04", "--alluredir=/r/a", "--junitxml", "/r/j.xml",
            "--run-dir=/r", "-p", "tests.mutation.cluster_mutants", "-p", "no:xdist", "-n4",
            "--numprocesses=3", "--write-baseline", "-m", "not fault", "--broker", "rabbitmq-3.10"]
    assert counting_args(args) == ["conformance", "-k", "ACK-04", "-p", "tests.mutation.cluster_mutants",
                                   "-m", "not fault", "--broker", "rabbitmq-3.10"]
