"""Per-broker baselines: the committed files are complete and honest, a run matching its
baseline exits 0, any change (a regression or an unexpected pass) exits non-zero and is
labelled new, and --write-baseline keeps the reasons of unchanged cases."""

import pytest

from amqp_conformance.fixtures.plugin.baselines import (BASELINE_DIR, KNOWN, NEW, Expectation, classify,
                                                        expectation_for, load, parent_of, path_of, write)
from amqp_conformance.fixtures.commands.catalogue import load_all_rules
from amqp_conformance.fixtures.brokers.registry import MANAGED_BROKERS
from amqp_conformance.fixtures.core.outcomes import EXPECTABLE
from amqp_conformance.fixtures.core.rules import REGISTRY, RULE_ID

def test_every_managed_broker_has_a_baseline_and_every_entry_is_explained():
    load_all_rules()
    # a variant that shares another broker's baseline (rabbitmq-3.10-tls: rabbitmq-3.10) has no file of its own
    assert {p.stem for p in BASELINE_DIR.glob("*.toml")} == {b.baseline or name for name, b in MANAGED_BROKERS.items()}
    for path in BASELINE_DIR.glob("*.toml"):
        parent = parent_of(path)
        assert parent is None or path_of(parent).exists(), f"{path.name} extends a baseline that is not there"
        for case, expected in load(path, own_only=True).items():
            rule_id = RULE_ID.match(case.split("[")[0].split("/")[0])
            assert rule_id and rule_id.group(0) in REGISTRY, f"{path.name}: {case} names no rule with a module"
            # a harness time-out is a defect of the suite, never an expectation
            assert expected.outcome in EXPECTABLE and set(expected.also) <= set(EXPECTABLE), f"{path.name}: {case}"
            assert expected.reason and expected.reference, f"{path.name}: {case} needs a reason and a reference"


def test_a_baseline_extends_another_and_a_fault_copy_expects_what_its_base_expects(tmp_path):
    (tmp_path / "parent.toml").write_text('[cases."RD-01[classic]"]\noutcome = "fail"\nreason = "r"\nreference = "x"\n')
    (tmp_path / "child.toml").write_text(f'extends = "{tmp_path / "parent.toml"}"\n'
                                         '[cases."PC-10[quorum]"]\noutcome = "fail"\nreason = "q"\nreference = "y"\n')
    cases = load(tmp_path / "child.toml")
    assert expectation_for(cases, "RD-01[classic]").outcome == "fail"
    assert expectation_for(cases, "RD-01[classic-flt05-slicer]").outcome == "fail"
    assert expectation_for(cases, "PC-10[quorum]").reason == "q"
    assert expectation_for(cases, "ACK-04") is None  # not listed: a pass


@pytest.mark.parametrize("expected, outcome, deviation", [
    (None, "pass", None), (None, "fail", NEW), ("pass", "pass", None), ("fail", "fail", KNOWN),
    ("unsupported", "unsupported", KNOWN), ("fail", "pass", NEW), ("pass", "fail", NEW),
    ("non-strict", "fail", NEW)])
def test_known_and_new(expected, outcome, deviation):
    assert classify(Expectation(expected) if expected else None, outcome) == deviation


def test_a_racy_case_accepts_each_outcome_it_lists_and_nothing_else():
    racy = Expectation("non-strict", "racy on this broker", "https://x/y", also=["pass"])
    assert classify(racy, "non-strict") == KNOWN and classify(racy, "pass") is None
    assert classify(racy, "fail") == NEW


def test_written_baseline_lists_only_what_does_not_pass_and_reads_back_the_same(tmp_path):
    cases = {"ACK-03[ack]": Expectation("fail", 'text with "quotes" and \\ and ü', "https://x/y#L1"),
             "ACK-03[ack-flt05-latency]": Expectation("fail", "as without the profile", "https://x/y#L1"),
             "ACK-03[ack-flt05-slicer]": Expectation("pass"),
             "ACK-04": Expectation("pass"),
             "CON-14": Expectation("non-strict", "racy", "https://x/z", also=["pass"])}
    write(tmp_path / "b.toml", "b", "Broker 1.0", cases)
    written = load(tmp_path / "b.toml")
    assert set(written) == {"ACK-03[ack]", "ACK-03[ack-flt05-slicer]", "CON-14"}
    assert written["ACK-03[ack]"] == cases["ACK-03[ack]"] and written["CON-14"] == cases["CON-14"]
    assert written["ACK-03[ack-flt05-slicer]"].outcome == "pass"  # differs from its base: listed


def test_two_cases_of_one_rule_need_labels_to_have_keys_of_their_own(tmp_path):
    from amqp_conformance.fixtures.plugin.baselines import case_key

    class Item:  # the parts of a pytest item a key is made of
        def __init__(self, marker=None, params=""):
            self.module = type("M", (), {"RULE": REGISTRY["ACK-08"]})
            self._marker = marker
            self.callspec = type("C", (), {"id": params})() if params else None

        def get_closest_marker(self, name):
            return self._marker

    load_all_rules()
    label = pytest.mark.case("outstanding").mark
    assert case_key(Item()) == "ACK-08"
    assert case_key(Item(label)) == "ACK-08/outstanding"
    assert case_key(Item(label, "flt05-latency")) == "ACK-08/outstanding[flt05-latency]"


def test_a_deviation_is_decided_in_one_place_and_the_run_only_counts_it(tmp_path):
    """amqp_conformance.fixtures.plugin.case_records classifies each case once, into its CaseResult (it calls
    the baselines' classify); nothing else calls either classify, and the baseline run records the result's
    deviation as it stands."""
    from amqp_conformance.fixtures.plugin.baselines import BaselineRun
    from amqp_conformance.fixtures.core.outcomes import CaseResult
    from tests.suite_runs import REPO

    callers = sorted(str(p.relative_to(REPO)) for folder in ("fixtures", "toxiproxy", "reports")
                     for p in (REPO / folder).rglob("*.py") if "classify(" in p.read_text())
    assert callers == ["fixtures/plugin/baselines.py", "fixtures/plugin/case_records.py"], callers
    importers = [path for path in callers if "classify as " in (REPO / path).read_text()]
    assert importers == ["fixtures/plugin/case_records.py"], importers  # the baselines' classify: the records alone
    (tmp_path / "b.toml").write_text('[cases."RD-01[classic]"]\noutcome = "fail"\nreason = "r"\nreference = "x"\n')
    run = BaselineRun(str(tmp_path / "b.toml"), writing=False)
    run.record(CaseResult("RD-01", "RD-01[classic]", "fail", baseline="fail", deviation=KNOWN))
    run.record(CaseResult("PC-02", "PC-02", "fail", evidence="why", deviation=NEW))
    run.record(CaseResult("ACK-04", "ACK-04", "pass"))
    assert run.known == ["RD-01[classic]: fail"] and run.changes == ["PC-02: fail (baseline: pass (not listed))"]
    assert run.seen["RD-01[classic]"].reason == "r" and run.seen["PC-02"].reason == "why"


def test_a_baseline_entrys_evidence_comes_from_the_case_not_from_report_text():
    from types import SimpleNamespace

    from amqp_conformance.fixtures.plugin.baselines import evidence_of
    from amqp_conformance.fixtures.checking.verifiers import Unsupported

    skipped = SimpleNamespace(skipped=True, longrepr=("f.py", 1, "Skipped: not read"), sections=[])
    call = SimpleNamespace(excinfo=SimpleNamespace(value=Unsupported("no tx", "tx.select refused"), typename="Skipped"))
    assert evidence_of(skipped, call) == "unsupported: no tx [tx.select refused]"
    completed = SimpleNamespace(skipped=False, longrepr=None, sections=[("non-strict findings", "not read")])
    assert evidence_of(completed, SimpleNamespace(excinfo=None), ["text differs", "queue amqpc-0a1b2c-q1"]) == \
        "text differs | queue amqpc-<run>-q1"
