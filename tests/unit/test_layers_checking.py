"""The checking floor (fixtures/checking/): the one place a case's outcome class is decided,
and, but for the verifiers' record, pure functions of a record, a report or a history, so
the plugin and `reports rejudge` judge with the same code."""

from __future__ import annotations

import ast
import re

import pytest

from amqp_conformance.fixtures import checking
from amqp_conformance.fixtures.checking import history, judge, rerun_verdicts
from tests.suite_runs import REPO

FLOOR = REPO / "fixtures" / "checking"
# What a pure function of a record or a history never needs: the network, processes, files,
# the clock or an event loop.
IMPURE = {"asyncio", "os", "pathlib", "shutil", "socket", "subprocess", "threading", "time", "requests", "aio_pika"}


def _imported_roots(path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and not node.level:
            roots.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
    return roots


@pytest.mark.parametrize("module", ["judge", "history", "confirm_stream", "rerun_verdicts"])
def test_the_deciding_modules_do_no_io(module):
    assert _imported_roots(FLOOR / f"{module}.py") & IMPURE == set()


def test_the_plugin_and_rejudge_ask_the_same_judge_and_checker():
    from amqp_conformance.fixtures.plugin import case_records, fault_injection
    from amqp_conformance.reports import rejudge

    assert case_records.judge is judge and case_records.rerun_rules is rerun_verdicts
    assert rejudge.outcome_of_broken is judge.outcome_of_broken
    assert rejudge.check_history is history.check_history is fault_injection.check_history


def test_no_module_off_the_floor_returns_an_outcome_class():
    # An outcome class returned anywhere else would be a second judge.
    deciding = re.compile(r"return (Outcome\.[A-Z_]+|HARNESS_LAG|SKIPPED)\b")
    found = [f"{path.relative_to(REPO)}:{number}" for folder in ("fixtures", "toxiproxy", "reports")
             for path in sorted((REPO / folder).rglob("*.py")) if FLOOR not in path.parents
             for number, line in enumerate(path.read_text().splitlines(), 1) if deciding.search(line)]
    assert found == []


def test_the_floor_says_what_each_of_its_modules_is():
    documented = set(re.findall(r"^  (\w+) ", checking.__doc__, re.M))
    assert documented == {path.stem for path in FLOOR.glob("*.py") if path.stem != "__init__"}
