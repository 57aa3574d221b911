"""What CI reads agrees with the exit status, against a real broker (issue 49's "done
when"): a garagemq run whose deviations are all in its baseline exits 0 with failures="0"
and each deviation visible by rule id; a new deviation exits 1 with a <failure> naming
the rule and the requirement; `--lf` then collects exactly the cases that failed."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from tests.suite_runs import REPO


def pytest_run(tmp_path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AMQP_")}
    return subprocess.run([sys.executable, "-m", "pytest", "conformance", "-o", f"cache_dir={tmp_path / 'cache'}",
                           "--reruns", "0", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=400)


@pytest.mark.integration
@pytest.mark.timeout(600)
def test_known_deviations_are_no_failures_and_a_new_one_is_one_that_lf_reruns(tmp_path):
    junit = tmp_path / "known.xml"
    known = pytest_run(tmp_path, "--broker", "garagemq", "-k", "ACK-07 or CON-09", "-m", "not fault",
                       f"--junitxml={junit}")
    assert known.returncode == 0, known.stdout[-3000:]
    root = ET.parse(junit).getroot()
    suite = root.find("testsuite")
    assert (root.get("failures"), suite.get("failures"), suite.get("errors")) == ("0", "0", "0"), known.stdout[-2000:]
    assert "garagemq" in suite.get("name") and "amqp-conformance" in suite.get("name")
    skipped = {case.get("name").split(" ")[0]: case.find("skipped").get("message") for case in suite.iter("testcase")}
    assert set(skipped) == {"ACK-07", "CON-09"}
    assert all(message.startswith(f"known deviation: {rule} ") for rule, message in skipped.items()), skipped
    last = known.stdout.strip().splitlines()[-1]
    assert "failed" not in last and "2 known deviation" in last, last

    # Against another broker's baseline garagemq's CON-09 is new: a failure, where CI and pytest's cache see it.
    junit = tmp_path / "new.xml"
    new = pytest_run(tmp_path, "--broker", "garagemq", "--baseline", "rabbitmq-4.0", "-k", "CON-09 or PC-02",
                     "-m", "not fault", f"--junitxml={junit}")
    assert new.returncode == 1, new.stdout[-3000:]
    failed = [case for case in ET.parse(junit).iter("testcase") if case.find("failure") is not None]
    assert [case.get("name").split(" ")[0] for case in failed] == ["CON-09"], new.stdout[-3000:]
    message = failed[0].find("failure").get("message")
    assert message.startswith("CON-09 MUST queue.delete") and "new deviation" in message, message
    assert "CON-09 MUST queue.delete" in new.stdout  # the terminal's last lines name it too

    listed = pytest_run(tmp_path, "--lf", "--collect-only", "-q", "-p", "no:xdist")
    cases = [line for line in listed.stdout.splitlines() if "::" in line]
    assert cases == ["conformance/consumers/test_con_09_queue_deleted_cancels_consumers.py"
                     "::test_deleting_a_queue_cancels_its_consumer"], listed.stdout[-2000:]
