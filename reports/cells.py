"""A rule's cell: one outcome for a rule from the outcomes of its cases, the mix behind
it, and the rules whose outcome differs between two brokers. The matrix page, matrix.md,
the pass rate over runs (amqp_conformance.reports.pipeline, as a Spark expression built from the same
table) and `python -m amqp_conformance.reports diff` all read this module; nothing else decides.

The first group any case of the rule is in decides, and the group's first outcome names
it: a failed or errored case makes the rule fail; a SHOULD broken makes it non-strict;
then a pass (one passing way of a rule is a checked rule, whatever its other ways could
not run), an informational figure, and only when no case could run at all, unsupported.

    python -m amqp_conformance.reports diff A B [--site DIR]

prints the rules whose outcome differs between broker versions A and B of a built site
(`python -m amqp_conformance.reports build` writes its matrix.csv), each with the case that decided each
side; A and B are broker versions as the matrix names them ("RabbitMQ 3.10.8"), or any
unambiguous part of one ("3.10").
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from amqp_conformance.fixtures.core.outcomes import SKIPPED, Outcome

PRECEDENCE: tuple[tuple[str, ...], ...] = (
    (Outcome.FAIL, Outcome.ERROR), (Outcome.NON_STRICT,), (Outcome.PASS,), (Outcome.INFO,),
    (Outcome.UNSUPPORTED,), (SKIPPED,))
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
    rule: str
    a: dict  # the matrix row of the rule on broker A (latest_outcome, latest_report_id, ...)
    b: dict


def differences(matrix: list[dict], a: str, b: str) -> list[Difference]:
    """The rules run on both broker versions whose latest outcome differs, in rule order."""
    on = {(row["broker_key"], row["rule"]): row for row in matrix}
    rules = sorted({row["rule"] for row in matrix}, key=rule_order)
    return [Difference(rule, on[(a, rule)], on[(b, rule)]) for rule in rules
            if (a, rule) in on and (b, rule) in on
            and on[(a, rule)]["latest_outcome"] != on[(b, rule)]["latest_outcome"]]


def count_text(found: int) -> str:
    return f"{found} rule differs" if found == 1 else f"{found} rules differ"


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


def case_text(row: dict) -> str:
    """The case that decided a side, as the Allure report names it."""
    return f"{row.get('latest_case') or '?'} (run {row.get('latest_run')}, report id {row.get('latest_report_id')})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m amqp_conformance.reports diff", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--site", type=Path, default=Path(__file__).resolve().parent / "site")
    args = parser.parse_args(argv)
    if not (args.site / "matrix.csv").exists():
        print(f"[reports] no matrix in {args.site}: run python -m amqp_conformance.reports build first", file=sys.stderr)
        return 2
    matrix = read_matrix(args.site)
    brokers = sorted({row["broker_key"] for row in matrix})
    a, b = broker_named(brokers, args.a), broker_named(brokers, args.b)
    found = differences(matrix, a, b)
    print(f"{count_text(len(found))} between {a} and {b}")
    for d in found:
        print(f"{d.rule}: {mix(d.a['latest_outcomes'])} on {a} | {mix(d.b['latest_outcomes'])} on {b}")
        print(f"    {a}: {case_text(d.a)}")
        print(f"    {b}: {case_text(d.b)}")
    return 0
