"""python -m amqp_conformance.reports rejudge RUN [RUN ...]: check a stored run's message
histories again with today's history checker, and say which verdicts would change.

A fault case's record keeps its history (message-history.jsonl) and what the checker made
of it then (history-check.json: the findings, how many events it checked and which lists
its rule judged). Here the same events go through today's checker
(amqp_conformance.fixtures.checking.history, pure: no broker, no I/O): a case
whose findings differ is listed with what changed, and its verdict would change when a
list its rule judged turns empty or not (the outcome that gives is the judge's, by the
rule's strength). A checker fix can so be tried on every stored run before it lands.
Exit status: 0 when no verdict would change, 1 when some would, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from amqp_conformance.fixtures.core.outcomes import CHECK_ATTACHMENT, HISTORY_ATTACHMENT, RESULTS_FILE, Outcome
from amqp_conformance.fixtures.core.rules import Strength
from amqp_conformance.fixtures.plugin.run_store import MANIFEST
from amqp_conformance.fixtures.checking.judge import outcome_of_broken
from amqp_conformance.fixtures.checking.history import check_history


@dataclass
class Change:
    case: str
    outcome: str  # the stored outcome
    differences: dict[str, tuple] = field(default_factory=dict)  # finding -> (then, today)
    would_be: str | None = None  # the outcome today's findings give, when the verdict changes

    def __str__(self) -> str:
        changed = "; ".join(f"{name}: {_shown(then)} -> {_shown(now)}" for name, (then, now) in self.differences.items())
        verdict = f"{self.outcome} -> {self.would_be}" if self.would_be else f"{self.outcome}, unchanged"
        return f"  {self.case}: {verdict} ({changed})"


def _shown(value) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value[:5]) + (" …" if len(value) > 5 else "") + "]"
    return str(value)


def rejudge_record(record: dict, checker: Callable = check_history) -> Change | None:
    """Today's findings on one stored case's history against the stored ones; None when
    they are the same (or the case has no history)."""
    attachments = record.get("attachments") or {}
    if HISTORY_ATTACHMENT not in attachments or CHECK_ATTACHMENT not in attachments:
        return None
    then = json.loads(attachments[CHECK_ATTACHMENT])
    events = [json.loads(line) for line in attachments[HISTORY_ATTACHMENT].splitlines() if line.strip()]
    checked = then.get("events_checked") or len(events)  # older runs checked the whole history
    today = checker(events[:checked], fault=then.get("fault", "none"), queue_type=then.get("queue_type", "classic"),
                    detection_window_s=then.get("detection_window_s")).to_json()
    judged = list(then.get("judged") or [])
    # The findings both checkers report (a run recorded before a finding existed has no
    # verdict on it); what was checked and judged is the record's, not a finding.
    differences = {name: (then[name], value) for name, value in today.items()
                   if name in then and name not in ("events_checked", "judged") and then[name] != value}
    if not differences:
        return None
    change = Change(record.get("case", "?"), str(record.get("outcome", "?")), differences)
    broke_then = any(then.get(name) for name in judged)
    broke_now = any(today.get(name) for name in judged)
    if broke_now and not broke_then:
        change.would_be = str(outcome_of_broken(Strength(record.get("strength") or "must")))
    elif broke_then and not broke_now:
        change.would_be = f"{Outcome.PASS} (unless another check of the case fails)"
    return change


def rejudge_run(run_dir: Path, checker: Callable = check_history) -> tuple[int, list[Change]]:
    """(how many cases had a history, the cases whose findings would differ)."""
    manifest = json.loads((run_dir / MANIFEST).read_text()) if (run_dir / MANIFEST).is_file() else {}
    results = run_dir / (manifest.get("results") or RESULTS_FILE)
    histories, changes = 0, []
    for line in results.read_text().splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        if HISTORY_ATTACHMENT in (record.get("attachments") or {}):
            histories += 1
        change = rejudge_record(record, checker)
        if change is not None:
            changes.append(change)
    return histories, changes


def main(args: list[str], checker: Callable = check_history) -> int:
    parser = argparse.ArgumentParser(prog="python -m amqp_conformance.reports rejudge",
                                     description="Check stored runs' message histories again with today's "
                                                 "checker; list the verdicts that would change.")
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUN", help="a stored run folder (reports/runs/<id>)")
    options = parser.parse_args(args)
    verdicts = 0
    for run_dir in options.runs:
        if not (run_dir / MANIFEST).is_file() and not (run_dir / RESULTS_FILE).is_file():
            print(f"ERROR: {run_dir}: not a stored run (no {MANIFEST}, no {RESULTS_FILE})", file=sys.stderr)
            return 2
        histories, changes = rejudge_run(run_dir, checker)
        would_change = [c for c in changes if c.would_be]
        verdicts += len(would_change)
        print(f"{run_dir}: {histories} histories checked again, {len(would_change)} verdicts would change, "
              f"{len(changes) - len(would_change)} other findings differ")
        for change in changes:
            print(change)
    return 1 if verdicts else 0
