"""A crash while reporting one case (pytest formatting its traceback) is that case's
failure with a short text, not an INTERNALERROR that ends the run (fixtures/report_guard)."""

import os
import subprocess
import sys
import textwrap

import pytest

from tests.suite_runs import REPO

# Formatting a failure raises what CPython 3.11.7's parser raised while pytest formatted
# a failed Hypothesis example of MDL-02.
CONFTEST = """
import pytest
from _pytest.python import Function

def crashing_repr_failure(self, excinfo, *args, **kwargs):
    raise SystemError("AST constructor recursion depth mismatch (before=49, after=48)")

Function.repr_failure = crashing_repr_failure
pytest_plugins = [{plugins}]
"""
CASES = """
def test_breaks_a_rule():
    assert 1 == 2, "expected one thing, got another"

def test_after_it():
    pass
"""


def run(tmp_path, *args, guard=True):
    (tmp_path / "conftest.py").write_text(
        CONFTEST.format(plugins='"amqp_conformance.fixtures.plugin.report_guard"' if guard else ""))
    (tmp_path / "test_cases.py").write_text(textwrap.dedent(CASES))
    # The checkout's packages, the fault layer included (toxiproxy/amqp_faults), whatever
    # an installed copy of the suite maps those names to.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "toxiproxy")])}
    # An installed suite loads the guard with the rest of amqp_conformance.fixtures.plugin: block it by name.
    blocked = [] if guard else ["-p", "no:amqp_conformance.fixtures.plugin.report_guard"]
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", *blocked,
                           "--rootdir", str(tmp_path), "-c", os.devnull, str(tmp_path), *args],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def test_without_the_guard_the_simulated_crash_ends_the_run(tmp_path):
    done = run(tmp_path, guard=False)
    assert done.returncode == 3 and "INTERNALERROR" in done.stdout + done.stderr, done.stdout + done.stderr


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_the_crash_is_that_case_s_failure_and_the_run_goes_on(tmp_path, workers):
    done = run(tmp_path, "-rA", *workers)
    text = done.stdout + done.stderr
    assert done.returncode == 1 and "INTERNALERROR" not in text, text
    assert "1 failed, 1 passed" in text, text
    assert "expected one thing, got another" in text, text
    assert "AST constructor recursion depth mismatch" in text, text


def test_the_backstops_alarm_never_fires_while_a_report_is_built():
    """pytest-timeout's SIGALRM is paused while any plugin builds a report (at load 46 it
    fired inside the report hook and ended the run in INTERNALERROR), and the time left is
    given back for the teardown."""
    import signal

    from amqp_conformance.fixtures.plugin.report_guard import PausedBackstop

    signal.setitimer(signal.ITIMER_REAL, 30.0)
    try:
        building = PausedBackstop().pytest_runtest_makereport(item=None, call=None)
        next(building)  # the report is being built
        assert signal.getitimer(signal.ITIMER_REAL)[0] == 0.0
        try:
            building.send("the report")
        except StopIteration as done:
            assert done.value == "the report"
        assert 25.0 < signal.getitimer(signal.ITIMER_REAL)[0] <= 30.0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
