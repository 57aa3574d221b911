"""`python -m amqp_conformance.reports rejudge RUN`: a stored run's histories checked again
by today's checker. A run recorded with a deliberately wrong checker is reported case by
case; the same run recorded with today's checker has nothing to report."""

from __future__ import annotations

import json
import subprocess
import sys

from amqp_conformance.fixtures.core.outcomes import CHECK_ATTACHMENT, HISTORY_ATTACHMENT, RESULTS_FILE, CaseResult
from amqp_conformance.fixtures.vocabulary.history import expect_none
from amqp_conformance.fixtures.checking.history import check_history
from amqp_conformance.fixtures.checking.verifiers import RuleViolation
from amqp_conformance.reports import rejudge
from tests.suite_runs import REPO
from tests.unit.test_history_checker import ack, deliver, lost_connection, published_and_confirmed


def ignores_multiple_acks(events, **kwargs):
    """A wrong checker: it reads an ack with multiple=true as a single one, so what it
    settled below its tag looks lost."""
    return check_history([{**e, "multiple": False} if e["kind"] == "ack" else e for e in events], **kwargs)


def never_loses(events, **kwargs):
    """A wrong checker: it never finds a lost message."""
    found = check_history(events, **kwargs)
    found.lost = []
    return found


SETTLED_BY_ONE_ACK = published_and_confirmed("a", "b") + [deliver("a", 1), deliver("b", 2), ack(2, multiple=True)]
ONE_LOST = published_and_confirmed("a", "b") + [deliver("a", 1), ack(1), deliver("b", 2), lost_connection()]


def stored_case(case: str, events: list[dict], checker, checked: int | None = None) -> dict:
    """A FLT case as the fault layer and the judge store it: its history, what `checker`
    found in the first `checked` events and the outcome its rule's expect_none gave."""
    found = checker(events[:checked] if checked is not None else events, fault="reset-peer")
    try:
        expect_none(found, "lost", "no confirmed message is lost")
        outcome = "pass"
    except RuleViolation:
        outcome = "fail"
    history = "".join(json.dumps(event) + "\n" for event in events)
    return CaseResult("FLT-01", case, outcome, strength="must", attachments={
        HISTORY_ATTACHMENT: history, CHECK_ATTACHMENT: json.dumps(found.to_json())}).as_dict()


def store(run_dir, *cases: dict):
    run_dir.mkdir()
    (run_dir / RESULTS_FILE).write_text("".join(json.dumps(case) + "\n" for case in cases))
    (run_dir / "manifest.json").write_text(json.dumps({"results": RESULTS_FILE}))
    return run_dir


def test_a_run_recorded_with_a_wrong_checker_shows_each_verdict_that_would_change(tmp_path, capsys):
    run = store(tmp_path / "wrong", stored_case("FLT-01[multiple]", SETTLED_BY_ONE_ACK, ignores_multiple_acks),
                stored_case("FLT-01[lost]", ONE_LOST, never_loses))
    assert rejudge.main([str(run)]) == 1
    shown = capsys.readouterr().out
    assert "2 histories checked again, 2 verdicts would change" in shown
    assert "FLT-01[multiple]: fail -> pass (unless another check of the case fails) (lost: [a] -> [])" in shown
    assert "FLT-01[lost]: pass -> fail (lost: [] -> [b])" in shown


def test_a_run_recorded_with_todays_checker_has_no_change(tmp_path, capsys):
    # the second case checked its history before the connection was lost: only that prefix counts
    run = store(tmp_path / "today", stored_case("FLT-01[multiple]", SETTLED_BY_ONE_ACK, check_history),
                stored_case("FLT-01[lost]", ONE_LOST, check_history, checked=len(ONE_LOST) - 1))
    assert rejudge.main([str(run)]) == 0
    assert "2 histories checked again, 0 verdicts would change, 0 other findings differ" in capsys.readouterr().out


def test_the_reports_command_line_runs_it(tmp_path):
    run = store(tmp_path / "run", stored_case("FLT-01[lost]", ONE_LOST, never_loses))
    done = subprocess.run([sys.executable, "-m", "amqp_conformance.reports", "rejudge", str(run)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "FLT-01[lost]: pass -> fail" in done.stdout, done.stdout + done.stderr
    missing = subprocess.run([sys.executable, "-m", "amqp_conformance.reports", "rejudge", str(tmp_path / "none")],
                             cwd=REPO, capture_output=True, text=True, timeout=120)
    assert missing.returncode == 2 and "not a stored run" in missing.stderr
