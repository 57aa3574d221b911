"""Per-broker baselines: the committed files are complete and honest, a run matching its
baseline exits 0, any change (a regression or an unexpected pass) exits non-zero and is
labelled new, and --write-baseline keeps the reasons of unchanged cases."""

import xml.etree.ElementTree as ET

import pytest

from fixtures.baselines import BASELINE_DIR, KNOWN, NEW, Expectation, classify, load, write
from fixtures.managed_brokers import MANAGED_BROKERS
from fixtures.outcomes import EXPECTABLE, PASSING
from tests.suite_runs import REPO, run_suite

RD_02_TCP_RESET = "conformance/redelivery/test_rd_02_requeue_on_connection_loss.py::test_unacked_deliveries_return_redelivered[tcp-reset]"


def test_every_managed_broker_has_a_baseline_and_every_non_pass_is_explained():
    # a variant that shares another broker's baseline (rabbitmq-tls: rabbitmq) has no file of its own
    assert {p.stem for p in BASELINE_DIR.glob("*.toml")} == {b.baseline or name for name, b in MANAGED_BROKERS.items()}
    for path in BASELINE_DIR.glob("*.toml"):
        for case, expected in load(path).items():
            assert (REPO / case.split("::")[0]).exists(), f"{path.name}: {case} names a module that is gone"
            # error is a defect of the run, never an expectation
            assert expected.rule and expected.outcome in EXPECTABLE and set(expected.also) <= set(EXPECTABLE)
            if expected.outcome not in PASSING or expected.also:
                assert expected.reason and expected.reference, f"{path.name}: {case} needs a reason and a reference"


@pytest.mark.parametrize("expected, outcome, deviation", [
    (None, "pass", None), (None, "fail", NEW), ("pass", "pass", None), ("fail", "fail", KNOWN),
    ("unsupported", "unsupported", KNOWN), ("fail", "pass", NEW), ("pass", "fail", NEW),
    ("non-strict", "fail", NEW)])
def test_known_and_new(expected, outcome, deviation):
    assert classify(Expectation(expected) if expected else None, outcome) == deviation


def test_a_racy_case_accepts_each_outcome_it_lists_and_nothing_else():
    racy = Expectation("non-strict", "CON-14", "racy on this broker", "https://x/y", also=["pass"])
    assert classify(racy, "non-strict") == KNOWN and classify(racy, "pass") is None
    assert classify(racy, "fail") == NEW


def test_written_baseline_reads_back_the_same(tmp_path):
    cases = {"conformance/a.py::t[x]": Expectation("fail", "ACK-03", 'text with "quotes" and \\ and ü', "https://x/y#L1"),
             "conformance/a.py::u": Expectation("pass", "ACK-04"),
             "conformance/a.py::v": Expectation("non-strict", "CON-14", "racy", "https://x/z", also=["pass"])}
    write(tmp_path / "b.toml", "b", "Broker 1.0", cases)
    assert load(tmp_path / "b.toml") == cases


def deviations(junit_text: str) -> dict[str, str]:
    found = {}
    for case in ET.fromstring(junit_text).iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        found[case.get("name")] = props.get("deviation")
    return found


@pytest.mark.integration
def test_garagemq_matches_its_baseline_and_a_changed_expectation_turns_the_run_red(tmp_path):
    matching = run_suite(tmp_path / "a", "--broker", "garagemq", "-k", "rd_02 or pc_02")
    assert matching.returncode == 0, matching.output[-3000:]
    assert "KNOWN  RD-02" in matching.output and "0 changes" in matching.output
    assert deviations(matching.files["junit.xml"])["test_unacked_deliveries_return_redelivered[tcp-reset]"] == KNOWN

    # A baseline that expects garagemq to pass RD-02 and to fail PC-02: a regression and
    # an unexpected pass. Both must make the run exit non-zero and be labelled new.
    tampered = load(BASELINE_DIR / "garagemq.toml")
    tampered[RD_02_TCP_RESET].outcome = "pass"
    pc_02 = next(case for case, e in tampered.items() if e.rule == "PC-02")
    tampered[pc_02] = Expectation("fail", "PC-02", "kept reason", "kept reference")
    path = tmp_path / "garagemq.toml"
    write(path, "garagemq", "garagemq 0.1", tampered)
    changed = run_suite(tmp_path / "b", "--broker", "garagemq", "--baseline", str(path), "-k", "rd_02 or pc_02")
    assert changed.returncode == 1, changed.output[-3000:]
    assert "NEW    RD-02 test_unacked_deliveries_return_redelivered[tcp-reset]: fail (baseline: pass)" in changed.output
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


def test_a_fault_profile_copy_with_its_base_outcome_inherits_the_reason():
    from fixtures.baselines import inherit_from_fault_free_case

    cases = {
        "m.py::t[classic]": Expectation("fail", "RD-01", "redelivered=false", "https://example.org/src#L1"),
        "m.py::t[classic-flt05-slicer]": Expectation("fail", "RD-01", "evidence of the copy", ""),
        "m.py::t[classic-flt05-latency]": Expectation("error", "RD-01", "handshake broke", ""),
        "m.py::u[flt05-jitter]": Expectation("pass", "RD-01"),
    }
    inherit_from_fault_free_case(cases)
    assert cases["m.py::t[classic-flt05-slicer]"].reference == "https://example.org/src#L1"
    assert cases["m.py::t[classic-flt05-slicer]"].reason == "as without the fault profile: redelivered=false"
    assert cases["m.py::t[classic-flt05-latency]"].reference == ""  # another outcome needs its own reason
