"""A run against a real broker compares with its baseline: a run matching it exits 0, any
change (a regression or an unexpected pass) exits non-zero and is labelled new, and
--write-baseline keeps the reasons of unchanged cases."""

import xml.etree.ElementTree as ET

import pytest

from amqp_conformance.fixtures.plugin.baselines import BASELINE_DIR, KNOWN, NEW, Expectation, load, write
from tests.suite_runs import run_suite

RD_02_TCP_RESET = "RD-02[tcp-reset]"


def deviations(junit_text: str) -> dict[str, str]:
    found = {}
    for case in ET.fromstring(junit_text).iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        rule, _, name = case.get("name").partition(" ")  # "RD-02 test_…[tcp-reset]": the rule id first
        assert rule == props.get("rule"), case.get("name")
        found[name] = props.get("deviation")
        if props.get("deviation") == KNOWN:  # expected: no failure where CI counts them
            assert case.find("failure") is None and case.find("skipped").get("type") == "known deviation"
    return found


@pytest.mark.integration
@pytest.mark.timeout(300)  # three suite runs of a broker node each; the default 60 s is for unit tests
def test_garagemq_matches_its_baseline_and_a_changed_expectation_turns_the_run_red(tmp_path):
    matching = run_suite(tmp_path / "a", "--broker", "garagemq", "-k", "rd_02 or pc_02")
    assert matching.returncode == 0, matching.output[-3000:]
    assert "KNOWN  RD-02" in matching.output and "0 changes" in matching.output
    assert deviations(matching.files["junit.xml"])["test_unacked_deliveries_return_redelivered[tcp-reset]"] == KNOWN

    # A baseline that expects garagemq to pass RD-02 and to fail PC-02: a regression and
    # an unexpected pass. Both must make the run exit non-zero and be labelled new.
    tampered = load(BASELINE_DIR / "garagemq.toml")
    tampered[RD_02_TCP_RESET] = Expectation("pass", "", "")
    pc_02 = "PC-02"
    tampered[pc_02] = Expectation("fail", "kept reason", "kept reference")
    path = tmp_path / "garagemq.toml"
    write(path, "garagemq", "garagemq 0.1", tampered)
    changed = run_suite(tmp_path / "b", "--broker", "garagemq", "--baseline", str(path), "-k", "rd_02 or pc_02")
    assert changed.returncode == 1, changed.output[-3000:]
    assert "NEW    RD-02[tcp-reset]: fail (baseline: pass" in changed.output
    assert "NEW    PC-02" in changed.output
    labels = deviations(changed.files["junit.xml"])
    assert labels["test_unacked_deliveries_return_redelivered[tcp-reset]"] == NEW
    assert labels["test_each_confirm_carries_the_publish_sequence_number"] == NEW
    assert any('"deviation"' in text and '"new"' in text for name, text in changed.files.items() if name.endswith("-result.json"))

    # Writing from that run: the changed cases take the run's outcome and evidence; the
    # unchanged one keeps its hand-written reason and reference.
    rewritten = run_suite(tmp_path / "c", "--broker", "garagemq", "--baseline", str(path), "--write-baseline",
                          "-k", "rd_02")
    assert rewritten.returncode == 0, rewritten.output[-3000:]
    after = load(path)
    assert after[RD_02_TCP_RESET].outcome == "fail" and "redelivered" in after[RD_02_TCP_RESET].reason
    assert after[pc_02].reason == "kept reason"  # not selected: left as it was
    clean_close = RD_02_TCP_RESET.replace("tcp-reset", "clean-close")
    assert after[clean_close].reason == tampered[clean_close].reason  # unchanged outcome: reason kept
