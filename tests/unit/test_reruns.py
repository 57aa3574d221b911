"""Issue 35 over plain records: when harness lag explains a verdict (the judge's table
entry), which cases are rerun, and what a case rerun after the run comes to
(amqp_conformance.fixtures.checking.rerun_verdicts, harness_lag; the case records' settled_record)."""

import asyncio
import time
from types import SimpleNamespace

import pytest

from amqp_conformance.fixtures.core import harness_lag
from amqp_conformance.fixtures.core.outcomes import HARNESS_LAG, CaseResult, Outcome
from amqp_conformance.fixtures.checking.rerun_verdicts import (FLAKY, HARNESS_ONLY, LAG_EVERY_TIME, RERUN_AFTER_ERROR,
                                                               RERUN_AFTER_LAG, WHY_ERROR, WHY_LAG, WHY_NEW,
                                                               WHY_UNLISTED, settle, wants_another, why_rerun)
from amqp_conformance.fixtures.checking import judge
from amqp_conformance.fixtures.plugin import case_records, reruns
from amqp_conformance.fixtures.plugin.baselines import BASELINE_KEY, NEW, Expectation
from amqp_conformance.fixtures.core.rules import Strength
from amqp_conformance.fixtures.checking.verifiers import TestRecord as Record

FAIL, PASS, ERROR, NON_STRICT = Outcome.FAIL, Outcome.PASS, Outcome.ERROR, Outcome.NON_STRICT


# -- which first attempts are rerun ------------------------------------------------------
def test_a_harness_lag_a_new_deviation_or_without_a_baseline_a_fail_or_error_is_rerun():
    assert why_rerun(HARNESS_LAG, None, with_baseline=True) == WHY_LAG
    assert why_rerun(FAIL, NEW, with_baseline=True) == WHY_NEW
    assert why_rerun(PASS, NEW, with_baseline=True) == WHY_NEW  # an unexpected pass is a change too
    assert why_rerun(FAIL, "known", with_baseline=True) is None  # what the baseline expects stands
    assert why_rerun(FAIL, None, with_baseline=False) == WHY_UNLISTED
    assert why_rerun(ERROR, None, with_baseline=False) == WHY_UNLISTED
    assert why_rerun(NON_STRICT, None, with_baseline=False) is None


def test_with_reruns_for_harness_only_the_runs_own_trouble_is_rerun():
    for with_baseline, deviation in ((True, NEW), (False, None)):
        assert why_rerun(HARNESS_LAG, deviation, with_baseline, HARNESS_ONLY) == WHY_LAG
        assert why_rerun(ERROR, deviation, with_baseline, HARNESS_ONLY) == WHY_ERROR
        assert why_rerun(FAIL, deviation, with_baseline, HARNESS_ONLY) is None  # the broker's verdict stands
        assert why_rerun(PASS, deviation, with_baseline, HARNESS_ONLY) is None


def test_a_case_is_rerun_until_one_rerun_is_a_verdict_within_the_budget():
    assert wants_another([FAIL], budget=2)
    assert not wants_another([FAIL], budget=0)  # --reruns 0
    assert not wants_another([HARNESS_LAG, PASS], budget=2)  # a clean rerun: done
    assert wants_another([HARNESS_LAG, HARNESS_LAG], budget=2)
    assert not wants_another([HARNESS_LAG, HARNESS_LAG, HARNESS_LAG], budget=2)
    assert wants_another([FAIL, ERROR], budget=2)  # an error says nothing: once more


# -- what the attempts come to -------------------------------------------------------------
def test_a_lagged_attempt_takes_a_clean_reruns_verdict():
    assert settle([HARNESS_LAG, PASS]) == (1, PASS, RERUN_AFTER_LAG)
    assert settle([HARNESS_LAG, HARNESS_LAG, FAIL]) == (2, FAIL, RERUN_AFTER_LAG)  # a fail stays a fail


def test_a_fail_without_lag_that_passes_on_the_rerun_stays_a_finding_marked_flaky():
    assert settle([FAIL, PASS]) == (0, FAIL, FLAKY)
    assert settle([NON_STRICT, PASS]) == (0, NON_STRICT, FLAKY)
    # the fault shows only on the rerun: the worst verdict, never the pass
    assert settle([PASS, FAIL]) == (1, FAIL, FLAKY)


def test_a_fail_that_fails_again_stays_a_fail():
    assert settle([FAIL, FAIL]) == (1, FAIL, "")
    assert settle([FAIL, HARNESS_LAG]) == (0, FAIL, "")  # a lagged rerun tells nothing: the first verdict stands


def test_no_attempt_free_of_harness_lag_is_neither_pass_nor_fail():
    assert settle([HARNESS_LAG, HARNESS_LAG, HARNESS_LAG]) == (2, HARNESS_LAG, LAG_EVERY_TIME)
    assert settle([HARNESS_LAG]) == (0, HARNESS_LAG, "")  # --reruns 0: reported as it is, not rerun


def test_an_error_of_the_run_takes_a_reruns_verdict_and_errors_everywhere_stay_an_error():
    assert settle([ERROR, PASS]) == (1, PASS, RERUN_AFTER_ERROR)
    assert settle([ERROR, ERROR]) == (1, ERROR, "")


def attempt(outcome, lag_ms=0.0, evidence="", case="ACK-04[ack]"):
    return CaseResult("ACK-04", case, outcome, harness_lag_ms=lag_ms, evidence=evidence,
                      steps=[f"step of the {outcome} attempt"]).as_dict()


def config_with(baseline: dict | None):
    stash = pytest.Stash()
    if baseline is not None:
        stash[BASELINE_KEY] = SimpleNamespace(expected_of=baseline.get)
    return SimpleNamespace(stash=stash)


def test_the_settled_record_keeps_the_deciding_attempt_and_lists_every_other():
    flaky = case_records.settled_record(config_with({}), [attempt(FAIL, 3, "lost 1"), attempt(PASS, 2)])
    assert flaky.outcome == FAIL and flaky.rerun_reason == FLAKY
    assert flaky.steps == ["step of the fail attempt"] and flaky.evidence == "lost 1"  # the finding's evidence
    assert [(a["attempt"], a["outcome"]) for a in flaky.attempts] == [(2, "pass")]
    assert flaky.deviation == NEW and flaky.baseline is None  # a pass expected: the flaky fail is new

    lagged = case_records.settled_record(config_with({}), [attempt(HARNESS_LAG, 1400, "late"), attempt(PASS, 1)])
    assert lagged.outcome == PASS and lagged.rerun_reason == RERUN_AFTER_LAG and lagged.deviation is None
    assert lagged.attempts[0]["outcome"] == HARNESS_LAG and lagged.attempts[0]["harness_lag_ms"] == 1400

    expected_fail = config_with({"ACK-04[ack]": Expectation("fail", "known")})
    assert case_records.settled_record(expected_fail, [attempt(HARNESS_LAG, 900), attempt(FAIL)]).deviation == "known"
    unjudged = case_records.settled_record(expected_fail, [attempt(HARNESS_LAG, 900), attempt(HARNESS_LAG, 800)])
    assert unjudged.outcome == HARNESS_LAG and unjudged.deviation is None  # counted apart, never a deviation


# -- the judge's table entry -----------------------------------------------------------------
def judged(lag_ms: float, *, passed=False, raised=AssertionError, heartbeat=0, strength=Strength.MUST):
    """The judge's outcome for a case whose process saw `lag_ms` of harness lag."""
    stash = pytest.Stash()
    stash[reruns.WATCH] = SimpleNamespace(worst_ms=lambda: 0.0)
    item = SimpleNamespace(config=SimpleNamespace(stash=stash), stash=pytest.Stash(),
                           get_closest_marker=lambda name: None)
    item.stash[reruns.LOOP_LAG_MS] = lag_ms
    report = SimpleNamespace(passed=passed, failed=not passed, skipped=False, when="call")
    excinfo = None if passed else SimpleNamespace(errisinstance=lambda kind: issubclass(raised, kind))
    record = Record(connections=[SimpleNamespace(heartbeat=heartbeat)] if heartbeat else [])
    case = judge.Case(item, SimpleNamespace(excinfo=excinfo), report, SimpleNamespace(strength=strength), record,
                      reruns.case_lag_ms(item))  # measured as the plugin measures it
    return judge.outcome_of(case), record.steps


def test_lag_of_half_the_smallest_bound_makes_a_verdict_of_the_clock_harness_lag():
    assert judge.outcome_of.__module__ == judge.__name__
    assert judged(100)[0] == FAIL  # the default bounds: a 1 s negative window, a 3 s reply bound
    outcome, steps = judged(600)
    assert outcome == HARNESS_LAG and "600 ms late" in steps[-1] and "fail" in steps[-1]
    assert judged(600, raised=RuntimeError)[0] == HARNESS_LAG  # an error of the run (a time-out)
    assert judged(600, passed=True)[0] == PASS  # a pass needs no excuse
    assert judged(600, passed=True, strength=Strength.INFO)[0] == Outcome.INFO


def test_the_bound_that_lag_is_measured_against_is_the_smallest_the_case_ran_under():
    assert harness_lag.explains(500, 1.0) and not harness_lag.explains(499, 1.0)
    assert judge.smallest_bound(Record(connections=[SimpleNamespace(heartbeat=0.4)])) == 0.4
    assert judged(250, heartbeat=0.4)[0] == HARNESS_LAG  # a 0.4 s heartbeat missed for 250 ms


def test_bounds_grow_with_recent_lag_never_below_their_configured_value():
    assert harness_lag.grown(3.0, 0.0) == 3.0
    assert harness_lag.grown(3.0, 0.25) == 4.0
    assert harness_lag.grown(3.0, 60.0) == 9.0  # at most three times


# -- the watches -----------------------------------------------------------------------------
def test_the_loop_watch_sees_a_blocked_loop():
    loop = asyncio.new_event_loop()
    try:
        watch = harness_lag.LoopWatch(loop)
        watch.start()
        loop.run_until_complete(asyncio.sleep(0.3))
        assert watch.stop() < 250  # a quiet loop (on a loaded machine a tick may still wait)

        watch = harness_lag.LoopWatch(loop)
        watch.start()

        async def blocks_the_loop():
            await asyncio.sleep(0.15)
            time.sleep(0.5)  # a body that keeps the loop busy
            await asyncio.sleep(0.15)
        loop.run_until_complete(blocks_the_loop())
        assert watch.stop() >= 350
    finally:
        loop.close()
