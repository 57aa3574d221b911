"""A rule's cell: one outcome for a rule from the outcomes of its cases, the mix behind
it, and the cases whose outcome differs between two broker versions or two runs. The
matrix page, matrix.md, the pass rate over runs (amqp_conformance.reports.pipeline, as a Spark
expression built from the same table) and `python -m amqp_conformance.reports diff` all read this
module; nothing else decides.

The first group any case of the rule is in decides, and the group's first outcome names
it: a failed or errored case makes the rule fail; a SHOULD broken makes it non-strict;
then a pass (one passing way of a rule is a checked rule, whatever its other ways could
not run), an informational figure, and only when no case could run at all, unsupported
(then harness-lag, then skipped).

    python -m amqp_conformance.reports diff A B [--site DIR] [--runs DIR]

prints the cases whose outcome differs between A and B, aligned by case: two broker
versions of a built site (each case as its cell shows it, from the run that decided the
cell) or two stored runs; each side names the run that decided it and its page in the
site's Allure report (else its result file). Only cases both sides ran are compared, and
the first line says how many that is and how many ran on one side only. As diff(1), it
exits 0 when no case differs, 1 when some do, 2 when it cannot compare (a run that is not
there is named as missing).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from amqp_conformance.fixtures.core.outcomes import HARNESS_LAG, RESULTS_FILE, SKIPPED, Outcome

from . import allure_report

HERE = Path(__file__).resolve().parent

PRECEDENCE: tuple[tuple[str, ...], ...] = (
    (Outcome.FAIL, Outcome.ERROR), (Outcome.NON_STRICT,), (Outcome.PASS,), (Outcome.INFO,),
    (Outcome.UNSUPPORTED,), (HARNESS_LAG,), (SKIPPED,))
RANK = {str(outcome): rank for rank, group in enumerate(PRECEDENCE) for outcome in group}
NAMES = [str(group[0]) for group in PRECEDENCE]  # the outcome each rank names
UNKNOWN_RANK = len(PRECEDENCE) - 1  # an outcome class this module does not know reads like a skip


def rank(outcome: str) -> int:
    return RANK.get(outcome, UNKNOWN_RANK)


def rule_outcome(outcomes: list[str]) -> str:
    """The rule's outcome from its cases' outcomes."""
    return NAMES[min((rank(o) for o in outcomes), default=UNKNOWN_RANK)]


def mix(outcomes: list[str]) -> str:
    """The rule's outcome and, when its cases disagree, the share of each other outcome:
    "pass · 4 of 6 unsupported"."""
    head = rule_outcome(outcomes)
    counts: dict[str, int] = {}
    for outcome in outcomes:
        counts[outcome] = counts.get(outcome, 0) + 1
    others = [o for o in sorted(counts, key=lambda o: (rank(o), o)) if o != head]
    if not others:
        return head
    return f"{head} · " + ", ".join(f"{counts[o]} of {len(outcomes)} {o}" for o in others)


@dataclass(frozen=True)
class Difference:
    """One case whose outcome differs between two sides (broker versions, or two runs),
    aligned by its key."""
    rule: str
    case: str
    a: dict  # {"name", "outcome", "report_id", "run", "rule"}: the case where it was decided
    b: dict


def version_cases(matrix: list[dict], broker_key: str) -> dict[str, dict]:
    """A broker version's cases as the matrix shows them: every case of each rule from the
    run that decides the rule's cell (the cell's links), keyed by case."""
    cases = {}
    for row in matrix:
        if row["broker_key"] == broker_key:
            for link in row.get("latest_case_links") or []:
                cases[link["name"]] = {**link, "rule": row["rule"], "run": row["latest_run"]}
    return cases


def differences(a: dict[str, dict], b: dict[str, dict]) -> list[Difference]:
    """The cases run on both sides whose outcome differs, in rule then case order, aligned
    by case key as wpt.fyi aligns two runs by test. A case run on one side only is no
    difference: a narrower run (or a version that lacks a way) says nothing of it."""
    found = [Difference(a[name]["rule"], name, a[name], b[name]) for name in set(a) & set(b)
             if a[name]["outcome"] != b[name]["outcome"]]
    return sorted(found, key=lambda d: (rule_order(d.rule), d.case))


def version_differences(matrix: list[dict], a: str, b: str) -> list[Difference]:
    return differences(version_cases(matrix, a), version_cases(matrix, b))


def differing_rules(matrix: list[dict]) -> set[str]:
    """The rules with a case whose outcome differs between any two broker versions: the
    matrix's "differs" filter keeps their rows."""
    brokers = sorted({row["broker_key"] for row in matrix})
    cases = {broker: version_cases(matrix, broker) for broker in brokers}
    return {d.rule for i, a in enumerate(brokers) for b in brokers[i + 1:]
            for d in differences(cases[a], cases[b])}


def count_text(found: int) -> str:
    return f"{found} case differs" if found == 1 else f"{found} cases differ"


# The markers that select a rule only when a -m expression names them (a default run never
# runs it), as the matrix names them for a rule no stored run ran.
SELECTED_ON_DEMAND = ("perf", "fuzz", "long", "cluster")


def catalogue() -> dict[str, str]:
    """Every catalogued rule (conformance/index.json), with what its matrix row says where
    no stored run ran it: "not run", or "not run (-m perf)" for a rule that only a -m
    expression selects."""
    from amqp_conformance.fixtures.core import rule_index

    index = rule_index.load()
    marks_of: dict[str, list[set[str]]] = {}
    for case in index.cases if index is not None else ():
        for rule_id in (k for k in case.keywords if RULE_ID.fullmatch(k)):
            marks_of.setdefault(rule_id, []).append({name for name, _ in case.marks})
    rules = {}
    for rule_id, marks in marks_of.items():
        only_by = [m for m in SELECTED_ON_DEMAND if all(m in case_marks for case_marks in marks)]
        rules[rule_id] = f"not run (-m {only_by[0]})" if only_by else "not run"
    return rules


RULE_ID = re.compile(r"[A-Z]+-\d{2}")


def rule_order(rule_id: str):
    area, _, number = rule_id.partition("-")
    return (area, int(number) if number.isdigit() else 0, rule_id)


def broker_named(brokers: list[str], wanted: str) -> str:
    """The broker version `wanted` names: exactly, else the one that contains it."""
    if wanted in brokers:
        return wanted
    found = [b for b in brokers if wanted.lower() in b.lower()]
    if len(found) != 1:
        raise SystemExit(f"[reports] {wanted!r} names {'none' if not found else 'several'} of the built "
                         f"broker versions: {', '.join(brokers)}")
    return found[0]


def read_matrix(site: Path) -> list[dict]:
    """The matrix rows `python -m amqp_conformance.reports build` wrote to matrix.csv (lists as JSON)."""
    rows = []
    with open(site / "matrix.csv", newline="") as f:
        for row in csv.DictReader(f):
            for key in ("latest_outcomes", "latest_case_links"):
                if row.get(key):
                    row[key] = json.loads(row[key])
            rows.append(row)
    return rows


def run_cases(run_dir: Path) -> dict[str, dict]:
    """A stored run's cases from its results.jsonl, keyed by case, with the id the Allure
    report gives each (amqp_conformance.reports.allure_report.report_id)."""
    cases = {}
    for line in (run_dir / RESULTS_FILE).read_text().splitlines():
        record = json.loads(line)
        uuid = (record.get("allure") or {}).get("uuid")
        cases[record["case"]] = {"name": record["case"], "outcome": record["outcome"], "rule": record["rule"],
                                 "run": run_dir.name, "uuid": uuid,
                                 "report_id": allure_report.report_id({"uuid": uuid}) if uuid else None}
    return cases


def run_folder(name: str, runs: Path) -> Path | None:
    """The stored run `name` names: a run folder's path, or a run id under `runs`."""
    for candidate in (Path(name), runs / name):
        if (candidate / "manifest.json").is_file() and (candidate / RESULTS_FILE).is_file():
            return candidate
    return None


def where(side: dict, site: Path, in_report: set[str], run_dirs: dict[str, Path]) -> str:
    """Where to read the case that decided a side: its page in the site's Allure report when
    the report holds it (a cell's deciding run always is), else its own result file."""
    if side.get("report_id") in in_report:
        return f"run {side['run']}: {site / 'allure' / 'index.html'}#{side['report_id']}"
    run_dir = run_dirs.get(side["run"])
    if run_dir is not None and side.get("uuid"):
        return f"run {side['run']}: {run_dir / 'allure-results' / (side['uuid'] + '-result.json')}"
    return f"run {side['run']}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m amqp_conformance.reports diff",
        description="The cases whose outcome differs between two broker versions of a built site (as the "
                    "matrix names them, or any unambiguous part: '3.10') or between two stored runs (run ids "
                    "or run folders), aligned by case. Each line names the run that decided each side and "
                    "where to read the case.")
    parser.add_argument("a", help="a broker version, a run id or a run folder")
    parser.add_argument("b", help="the same kind as A")
    parser.add_argument("--site", type=Path, default=HERE / "site", help="the built site (default: reports/site)")
    parser.add_argument("--runs", type=Path, default=Path(os.environ.get("AMQP_RUNS_DIR") or HERE / "runs"),
                        help="where run ids are looked up (default: $AMQP_RUNS_DIR or reports/runs)")
    args = parser.parse_args(argv)
    matrix = read_matrix(args.site) if (args.site / "matrix.csv").exists() else []
    in_report = {link.get("report_id") for row in matrix for link in row.get("latest_case_links") or []}
    run_a, run_b = run_folder(args.a, args.runs), run_folder(args.b, args.runs)
    brokers = sorted({row["broker_key"] for row in matrix})
    if run_a is not None and run_b is not None:
        a, b = run_a.name, run_b.name
        cases_a, cases_b = run_cases(run_a), run_cases(run_b)
        run_dirs = {a: run_a, b: run_b}
    elif run_a is not None or run_b is not None:
        missing = args.b if run_a is not None else args.a
        if any(missing.lower() in broker.lower() for broker in brokers):
            print(f"[reports] {args.a!r} and {args.b!r} must both be runs or both broker versions", file=sys.stderr)
        else:
            print(f"[reports] no stored run {missing!r}: neither a run folder nor a run id in {args.runs}",
                  file=sys.stderr)
        return 2
    elif not matrix:
        print(f"[reports] no stored run {args.a!r} in {args.runs}, and no matrix in {args.site} to find a broker "
              "version in: run python -m amqp_conformance.reports build first", file=sys.stderr)
        return 2
    else:
        a, b = broker_named(brokers, args.a), broker_named(brokers, args.b)
        cases_a, cases_b = version_cases(matrix, a), version_cases(matrix, b)
        run_dirs = {}
    found = differences(cases_a, cases_b)
    both = len(set(cases_a) & set(cases_b))
    print(f"{count_text(len(found))} between {a} and {b}, of {both} case(s) both ran"
          f" ({len(set(cases_a) - set(cases_b))} on {a} only, {len(set(cases_b) - set(cases_a))} on {b} only: not compared)")
    for d in found:
        print(f"{d.case}: {d.a['outcome']} on {a} | {d.b['outcome']} on {b}")
        print(f"    {a}: {where(d.a, args.site, in_report, run_dirs)}")
        print(f"    {b}: {where(d.b, args.site, in_report, run_dirs)}")
    return 1 if found else 0  # as diff(1): 1 when the two differ
