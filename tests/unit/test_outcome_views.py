"""How an outcome class shows is one table (amqp_conformance.fixtures.core.outcomes.SHOWN):
JUnit writes a non-strict case as a skipped element with its findings (a failure under
--strict), counted once, and the categories Allure groups by read their statuses from it."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from amqp_conformance.fixtures.core.outcomes import (CATEGORIES, HARNESS_LAG, SHOWN, SKIPPED, Outcome, lag_fields,
                                                     shown)

# A plugin that gives a plain test the record of a broken SHOULD, as the judge would.
PLUGIN = '''
import pytest
from amqp_conformance.fixtures.core.outcomes import CaseResult

@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if call.when == "call":
        report.case_result = CaseResult(rule="X-01", case="X-01", outcome="non-strict",
                                        non_strict=["a SHOULD broken"]).as_dict()
    return report
'''


def junit_of(tmp_path, *options: str) -> ET.Element:
    (tmp_path / "fake_judge.py").write_text(PLUGIN)
    (tmp_path / "test_x.py").write_text("def test_a():\n    pass\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "fake_judge", "test_x.py",
                           f"--junitxml={tmp_path / 'j.xml'}", "-c", "/dev/null", "-q", *options],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert (tmp_path / "j.xml").exists(), done.stdout + done.stderr
    return ET.parse(tmp_path / "j.xml").getroot().find("testsuite")


def test_a_non_strict_case_is_a_skipped_element_in_junit(tmp_path):
    suite = junit_of(tmp_path)
    (case,) = suite.iter("testcase")
    (element,) = [e for e in case if e.tag in ("skipped", "failure", "error")]
    assert (element.tag, element.get("type")) == (SHOWN[Outcome.NON_STRICT].junit, "non-strict")
    assert "a SHOULD broken" in element.get("message")
    assert (suite.get("tests"), suite.get("skipped"), suite.get("failures")) == ("1", "1", "0")


def test_under_strict_a_non_strict_case_is_a_failure(tmp_path):
    suite = junit_of(tmp_path, "--strict")
    (case,) = suite.iter("testcase")
    assert [e.tag for e in case if e.tag in ("skipped", "failure", "error")] == ["failure"]
    assert (suite.get("tests"), suite.get("skipped"), suite.get("failures")) == ("1", "0", "1")


@pytest.mark.parametrize("outcome", [*Outcome, SKIPPED, HARNESS_LAG])
def test_every_class_has_one_row_and_no_class_but_pass_and_info_passes(outcome):
    row = shown(outcome)
    assert row.passing == (outcome in (Outcome.PASS, Outcome.INFO))
    assert (row.junit == "") == row.passing and (row.allure == "passed") == row.passing
    assert shown("no such class") == SHOWN[SKIPPED]


def test_allure_categories_read_their_statuses_from_the_table():
    by_name = {c["name"].split(":")[0]: c for c in CATEGORIES}
    assert SHOWN[Outcome.NON_STRICT].allure in by_name[Outcome.NON_STRICT]["matchedStatuses"]
    assert by_name[HARNESS_LAG]["matchedStatuses"] == [SHOWN[HARNESS_LAG].allure]


def test_lag_fields_read_with_defaults():
    assert lag_fields({}) == [] and lag_fields({"harness_lag_ms": None, "attempts": None}) == []
    fields = dict(lag_fields({"harness_lag_ms": 412.3, "rerun_reason": "rerun after harness lag",
                              "attempts": [{"outcome": "fail", "harness_lag_ms": 900, "why": "lag 900 ms"}]}))
    assert fields == {"harness_lag_ms": "412", "rerun_reason": "rerun after harness lag",
                      "attempt 1": "fail (harness lag 900 ms): lag 900 ms"}
