"""The fault part of the suite (`-m fault`: RD-02 through faults, FLT-01..08 and the
FLT-05 copies of the ACK/QOS/PC/TX rules) passes on RabbitMQ, within its time budget,
with a message history and a checker verdict for every history-judged test; against
garagemq, a broker that breaks them, the rules fail (INFO FLT-06 never judges)."""

import json

import pytest

from tests.suite_runs import EXPECTING_FAILS, run_suite

pytestmark = [pytest.mark.integration, pytest.mark.timeout(330)]
FAULT_RULES = {f"FLT-0{n}" for n in range(1, 9)} | {"RD-02"}
# The fault rules pass on RabbitMQ twice over: in ci/test, every fault rule with the FLT-05
# copies of one rule of each area that has them, and of the other rules that stop their
# node, one of each kind: FLT-08's kill -9 and QU-07's clean restart (74 cases); in
# ci/mutation (`full`), every copy and every such rule (450 cases). The same assertions
# judge both. PC-10, TX-10, QU-08, EX-13 and BND-04 (8 cases, most a node stopped and booted
# again through the same fixture as FLT-08's and QU-07's) were about 40 s of ci/test's CPU.
REPRESENTATIVE_COPIES = "not flt05 or ack_04 or qos_01 or pc_02 or tx_01"
MORE_NODE_STOPS = "pc_10 or tx_10 or qu_08 or ex_13 or bnd_04"
FAULT_PART = [pytest.param(("-k", f"({REPRESENTATIVE_COPIES}) and not ({MORE_NODE_STOPS})"), id="representative"),
              pytest.param((), id="whole", marks=pytest.mark.full)]


@pytest.mark.parametrize("part", FAULT_PART)
def test_fault_rules_pass_on_rabbitmq(tmp_path, part):
    run = run_suite(tmp_path, "-m", "fault", "-n", "2", *part, timeout=300)
    assert run.returncode == 0, run.output[-3000:]
    assert FAULT_RULES <= {c.properties["rule"] for c in run.cases}
    # Beside pass/info only what RabbitMQ's baseline records as a known deviation.
    unexplained = [(c.name, c.outcome) for c in run.cases
                   if c.outcome not in ("pass", "info") and c.properties.get("deviation") != "known"]
    assert not unexplained, unexplained
    copies = [c for c in run.cases if c.properties.get("fault_rule") == "FLT-05"]
    assert copies and {c.properties["fault_profile"] for c in copies} == {"latency", "jitter", "bandwidth", "slicer"}
    judged = [c for c in run.cases if c.properties["rule"].startswith("FLT-") and "history_lost" in c.properties]
    assert len(judged) >= 20 and all(c.properties["history_lost"] == "0" for c in judged)
    checks = [json.loads(text) for name, text in run.files.items() if name.endswith("attachment.json")
              and '"watermark_violations"' in text]
    assert len(checks) >= len(judged)
    assert any(name.endswith(".jsonl") for name in run.files)
    # A hang detector, not a performance target (those are benchmarks): every wait is
    # bounded, so even a loaded machine finishes well inside this.
    assert run.seconds < 600, run.seconds


# On garagemq, ci/test leaves out RD-11: its two cases publish 3,000 confirmed messages of
# 2,000 bytes each, which garagemq confirms slowly (21 s a case quiet, a minute in a loaded
# ci/test), and this test asserts nothing of RD-11 beyond what it asserts of every case;
# ci/mutation (`full`) runs the whole fault part.
FAILING_PART = [pytest.param(("-k", "not flt05 and not rd_11"), id="representative"),
                pytest.param(("-k", "not flt05"), id="whole", marks=pytest.mark.full)]


@pytest.mark.parametrize("part", FAILING_PART)
def test_fault_rules_fail_on_a_broker_that_breaks_them(tmp_path, part):
    # Its fails are expected: each is not run again to confirm it (16 reruns, about 20 s).
    run = run_suite(tmp_path, "--broker", "garagemq", "-m", "fault", "-n", "2", *part, *EXPECTING_FAILS, timeout=300)
    outcomes: dict[str, set[str]] = {}
    for case in run.cases:
        outcomes.setdefault(case.properties["rule"], set()).add(case.outcome)
    failing = {rule for rule, seen in outcomes.items() if "fail" in seen}
    # garagemq: no redelivered flag on redeliveries (RD-02, FLT-03, FLT-04, FLT-07, FLT-08).
    # FLT-05's split protocol header races inside garagemq (its baseline lists fail and
    # pass: one Read may see both pieces), so it is no certain failure.
    assert {"RD-02", "FLT-03", "FLT-04", "FLT-07", "FLT-08"} <= failing, outcomes
    assert outcomes["FLT-05"] <= {"fail", "pass"}, outcomes
    assert outcomes["FLT-06"] == {"info"}
    for case in run.cases:
        if case.outcome == "fail" and case.failure is None:
            # a fail the baseline expects is a known deviation in JUnit, not a <failure>
            assert case.properties.get("deviation") == "known", (case.name, case.properties)
        elif case.outcome == "fail":
            assert ("expected:" in case.failure and "actual:" in case.failure
                    or "expected " in case.failure and "; seen " in case.failure), case.failure[:500]
