"""The JUnit file tells CI what the exit status says (issue 49): a difference the baseline
expects is a <skipped> "known deviation: <rule> <reason>", never a <failure>; a new
deviation or a --strict SHOULD is a <failure> naming the rule, the requirement and what was
seen; a testcase's name starts with its rule id; the suite is named after the broker and
the catalogue, never "pytest". A plain test here carries a case's record, as the judge
would give it (the suite's plugin is loaded through its entry point)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

pytestmark = pytest.mark.timeout(240)  # a pytest process each, on a loaded machine

from amqp_conformance.fixtures.core.outcomes import (HARNESS_LAG, KNOWN, NEW, CaseResult, Outcome, fails_the_run,
                                                     junit_element)

PLUGIN = '''
import json, os
import pytest

pytestmark = pytest.mark.timeout(240)  # a pytest process each, on a loaded machine
from amqp_conformance.fixtures.core.outcomes import CaseResult

@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if call.when == "call":
        report.case_result = CaseResult(**json.loads(os.environ["FAKE_RECORD"]), nodeid=item.nodeid).as_dict()
    return report
'''
BROKEN = dict(rule="X-01", case="X-01", strength="must", requirement="a close answers the double ack",
              expected="channel.close 406", actual="the channel stayed open")


def junit_of(tmp_path, record: dict, *options: str) -> ET.Element:
    (tmp_path / "fake_judge.py").write_text(PLUGIN)
    (tmp_path / "test_x.py").write_text("def test_a():\n    pass\n")
    env = {"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin", "FAKE_RECORD": json.dumps(record)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "fake_judge", "test_x.py",
                           f"--junitxml={tmp_path / 'j.xml'}", "-c", "/dev/null", "-q", "--reruns", "0", *options],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert (tmp_path / "j.xml").exists(), done.stdout + done.stderr
    return ET.parse(tmp_path / "j.xml").getroot()


def test_a_known_deviation_is_skipped_with_its_rule_and_reason_and_counts_no_failure(tmp_path):
    root = junit_of(tmp_path, {**BROKEN, "outcome": "fail", "deviation": KNOWN,
                               "deviation_reason": "garagemq accepts a double ack"})
    suite = root.find("testsuite")
    (case,) = suite.iter("testcase")
    assert [e.tag for e in case if e.tag in ("skipped", "failure", "error")] == ["skipped"]
    assert case.find("skipped").get("message") == "known deviation: X-01 garagemq accepts a double ack"
    assert (suite.get("failures"), suite.get("skipped"), root.get("failures")) == ("0", "1", "0")


def test_a_new_deviation_is_a_failure_naming_rule_requirement_and_what_was_seen(tmp_path):
    suite = junit_of(tmp_path, {**BROKEN, "outcome": "fail", "deviation": NEW, "baseline": None}).find("testsuite")
    (case,) = suite.iter("testcase")
    message = case.find("failure").get("message")
    assert message.startswith("X-01 MUST a close answers the double ack"), message
    assert "channel.close 406" in message and "the channel stayed open" in message and "new deviation" in message
    assert suite.get("failures") == "1"


def test_under_strict_a_non_strict_case_is_a_failure_with_its_finding(tmp_path):
    record = dict(rule="X-02", case="X-02", strength="should", outcome="non-strict",
                  non_strict=["the reply text differs"], requirement="", expected="", actual="")
    suite = junit_of(tmp_path, record, "--strict").find("testsuite")
    (case,) = suite.iter("testcase")
    assert "X-02 non-strict" in case.find("failure").get("message")
    assert "the reply text differs" in case.find("failure").get("message")


def test_names_start_with_the_rule_id_and_the_suite_is_named_after_the_catalogue(tmp_path):
    suite = junit_of(tmp_path, {**BROKEN, "outcome": "pass"}).find("testsuite")
    (case,) = suite.iter("testcase")
    assert case.get("name") == "X-01 test_a" and case.get("classname") == "test_x"
    assert suite.get("name") != "pytest" and "amqp-conformance" in suite.get("name"), suite.get("name")
    assert not [e for e in case if e.tag in ("skipped", "failure", "error")]


# What makes the exit status 1, as the JUnit file and pytest's report say it: (outcome,
# deviation, strict, compared) -> fails the run.
FAILS = [
    ("fail", None, False, False, True),  # raw verdicts: a MUST broken
    ("error", None, False, False, True),
    ("non-strict", None, False, False, False),
    ("non-strict", None, True, False, True),  # --strict
    ("non-strict", KNOWN, True, True, True),  # --strict, whatever the baseline says
    ("fail", KNOWN, False, True, False),  # the baseline expects it
    ("fail", KNOWN, False, False, False),  # a deviation(reason) marker
    ("fail", NEW, False, True, True),
    ("pass", NEW, False, True, True),  # an unexpected pass changes the baseline
    ("unsupported", NEW, False, True, True),
    (HARNESS_LAG, None, False, True, True),  # the run cannot vouch for it
    (HARNESS_LAG, None, False, False, False),
    ("pass", None, True, True, False),
]


@pytest.mark.parametrize("outcome, deviation, strict, compared, fails", FAILS)
def test_what_fails_the_run(outcome, deviation, strict, compared, fails):
    result = CaseResult("X-01", "X-01", outcome, strength="must", deviation=deviation)
    assert fails_the_run(result, strict=strict, compared=compared) is fails
    tag = junit_element(result, strict=strict, compared=compared)[0]
    assert (tag in ("failure", "error")) is fails
    if deviation == KNOWN and not fails:
        assert tag == "skipped"
