"""A managed broker that exits during a run ends the run in one line, naming the broker,
the case and the log, instead of an error for each later case (fixtures/plugin/broker_watch.py)."""

from __future__ import annotations

import pytest

from tests.suite_runs import run_suite


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_broker_that_exits_mid_run_ends_the_run_in_one_line(tmp_path, workers):
    run = run_suite(tmp_path, "-n", workers, "-p", "no:randomly", "-p", "tests.integration.kill_broker_plugin",
                    "-k", "ACK-01 or ACK-02 or ACK-04 or ACK-05 or ACK-06 or ACK-09")
    assert run.returncode not in (0, 1), run.output[-3000:]  # not a verdict: the run was stopped
    [line] = [line for line in run.output.splitlines() if "the broker under test (" in line]
    assert ") exited with status -9" in line and "its log:" in line, line
    errors = [case for case in run.cases if case.failure and "error" in case.failure.lower()]
    assert len(errors) <= int(workers) + 1, [c.name for c in errors]  # not one for every later case
