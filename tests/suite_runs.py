"""Run the conformance suite as a user would (a subprocess) and read its JUnit XML."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MODEL_CHECKS = ["MDL-01", "MDL-02"]  # model-based checks, covering many rules each (conformance/model/)
SEVEN_RULES = ["ACK-03", "ACK-04", "ACK-05", "RD-02", "PC-02", "PC-04", "PC-05", "PC-06", "TX-01", "TX-02", "CON-10"]
# What ci/test runs of a whole-catalogue test (the whole catalogue runs in ci/mutation): the
# seven named rules, the acknowledgement model, and one rule of every other area that a run
# without faults selects (FLT: tests/integration/test_fault_rules.py; CLU needs a cluster;
# PERF runs on demand). A change that breaks an area's machinery (its vocabulary, its wire
# path, the way its verdicts reach JUnit and the baseline) breaks that area's rule here.
# tests/unit/test_where_project_tests_run.py checks that every such area has one.
ONE_RULE_PER_AREA = {"RQ": "RQ-01", "RD": "RD-01", "QOS": "QOS-01", "CON": "CON-01", "EX": "EX-01", "QU": "QU-04",
                     "BND": "BND-01", "RT": "RT-01", "CH": "CH-01", "CN": "CN-01", "FR": "FR-01"}
REPRESENTATIVE_RULES = [*SEVEN_RULES, MODEL_CHECKS[0], *ONE_RULE_PER_AREA.values()]
AREAS_NOT_IN_A_CATALOGUE_RUN = {"FLT": "the fault rules: -m fault, tests/integration/test_fault_rules.py",
                                "CLU": "a three-node cluster (--broker rabbitmq-cluster)",
                                "PERF": "measurement runs on demand (-m perf)"}


def representative_selection() -> tuple[str, ...]:
    """The `-k` arguments that pick REPRESENTATIVE_RULES out of the catalogue."""
    return ("-k", " or ".join(REPRESENTATIVE_RULES))


@dataclass
class Case:
    name: str
    properties: dict[str, str]
    failure: str | None

    @property
    def outcome(self) -> str:
        return self.properties.get("outcome", "?")


@dataclass
class SuiteRun:
    returncode: int
    output: str
    seconds: float
    cases: list[Case]
    files: dict[str, str]  # report files (JUnit, allure results) by name, as text


def run_suite(tmp_path: Path, *args: str, timeout: float = 240, env: dict[str, str] | None = None) -> SuiteRun:
    junit = tmp_path / "junit.xml"
    allure_dir = tmp_path / "allure"
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("AMQP_")}, **(env or {})}
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "conformance", "-p", "no:cacheprovider", f"--junitxml={junit}",
         f"--alluredir={allure_dir}", *args],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)
    seconds = time.monotonic() - started
    cases = []
    files = {}
    if junit.exists():
        files["junit.xml"] = junit.read_text()
        for case in ET.parse(junit).getroot().iter("testcase"):
            properties = {p.get("name"): p.get("value") for p in case.iter("property")}
            failed = case.find("failure")
            # The JUnit name is "<rule id> <pytest's name>" (fixtures/plugin/junit_file.py): cases are
            # found here by pytest's name.
            rule, _, name = case.get("name").partition(" ")
            assert rule == properties.get("rule"), case.get("name")
            cases.append(Case(name, properties,
                              None if failed is None else (failed.get("message", "") + "\n" + (failed.text or ""))))
    if allure_dir.exists():
        files.update({p.name: p.read_text(errors="replace") for p in allure_dir.iterdir() if p.is_file()})
    return SuiteRun(done.returncode, done.stdout + done.stderr, seconds, cases, files)


def outcomes(run: SuiteRun) -> dict[tuple[str, str], str]:
    """(rule, test case) -> outcome class. A case copied through a fault profile
    (`[...flt05-slicer]`) judges FLT-05, "faults change no verdict", whatever rule it copies."""
    return {("FLT-05" if "flt05-" in c.name else c.properties.get("rule", "?"), c.name): c.outcome
            for c in run.cases}


# A consumer timeout longer than a reply bound plus a quiet window, for managed nodes that a
# suite run judges through a proxy. With the suite's default 2.5 s, a test that holds
# deliveries and waits timeouts.REPLY (3 s) for ones a rewritten broker never sends (or
# sends later) loses its channel to the consumer timeout first and ends in an error instead
# of a verdict; a real broker's timeout is minutes.
PATIENT_CONSUMER_TIMEOUT_MS = 6000


def patient(node):
    """`node` (a managed broker, not started yet) with the patient consumer timeout."""
    node.consumer_timeout_ms = PATIENT_CONSUMER_TIMEOUT_MS
    return node


# A mutant's run expects its rules to fail: rerunning each fail to confirm it doubles the
# run (hide_precondition_failed: ~100 cases that wait out a reply bound each, one at a
# time). Only a harness-lag or an error, the run's own trouble, is run again.
EXPECTING_FAILS = ("--reruns-for", "harness")


def node_args(node, url: str | None = None, baseline: bool = False) -> list[str]:
    """The suite's arguments to judge managed `node` reached at `url` (a proxy in front of
    it; by default the node itself): an --amqp-url target, told the node's consumer timeout
    and channel tick; with `baseline`, judged against the node's own baseline."""
    return ["--amqp-url", url or node.target.url, "--consumer-timeout-ms", str(node.consumer_timeout_ms),
            "--consumer-timeout-check-ms", str(node.channel_tick_ms), *(["--baseline", node.name] if baseline else [])]
