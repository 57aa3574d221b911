"""Per-case flips over stored runs of one broker: `python -m amqp_conformance.reports.flips
RUN_DIR...` reads each run's results.jsonl (the outcome of every case's record) and prints,
for each case that every run ran and whose outcome was not the same in all of them, its
outcomes in run order and how often it changed. A case some runs did not run is left out
(a full run against -k runs would otherwise "change" every case), and the line says how
many were. ci/suite --repeat N prints this after its N runs.

Flips are flakiness of one broker: runs of different brokers (the manifest's broker and
version) are refused with one line, unless --across-brokers, which says it on the first
line. A folder that is not a stored run (no manifest.json) is refused with one line; a
refusal exits 2: flips over nothing prove nothing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from amqp_conformance.fixtures.core.outcomes import RESULTS_FILE
from amqp_conformance.fixtures.core.stored_runs import MANIFEST, why_not_a_run


def outcomes(run: Path) -> dict[str, str]:
    """case key -> outcome class of one stored run ({} without results.jsonl; a line that
    is not a record is left out)."""
    records = run / RESULTS_FILE
    if not records.is_file():
        return {}
    cases = {}
    for line in records.read_text().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("case") and record.get("outcome"):
            cases[str(record["case"])] = str(record["outcome"])
    return cases


def broker_of(run: Path) -> str:
    """The broker a stored run ran against, as its manifest names it ("?" when it does not)."""
    try:
        manifest = json.loads((run / MANIFEST).read_text())
    except (OSError, ValueError):
        return "?"
    return f"{manifest.get('broker', '?')} {manifest.get('broker_version', '')}".strip()


def ran_in_every_run(runs: list[dict[str, str]]) -> set[str]:
    return set.intersection(*(set(run) for run in runs)) if runs else set()


def flips(runs: list[dict[str, str]]) -> list[tuple[str, list[str], int]]:
    """(case, outcome per run, number of changes) for every case that every run ran and
    that did not show one outcome in all of them."""
    found = []
    for case in sorted(ran_in_every_run(runs)):
        seen = [run[case] for run in runs]
        changes = sum(1 for a, b in zip(seen, seen[1:]) if a != b)
        if changes:
            found.append((case, seen, changes))
    return found


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m amqp_conformance.reports.flips",
                                     description="The cases whose outcome changed between stored runs of one broker.")
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR", help="stored run folders, in run order")
    parser.add_argument("--across-brokers", action="store_true",
                        help="compare runs of different brokers too (they are refused otherwise)")
    args = parser.parse_args(argv)
    runs = args.runs
    refused = [problem for problem in map(why_not_a_run, runs) if problem]
    for problem in refused:
        print(f"[flips] {problem}", file=sys.stderr)
    if refused:
        return 2
    brokers = [broker_of(run) for run in runs]
    mixed = sorted(set(brokers))
    if len(mixed) > 1 and not args.across_brokers:
        print(f"[flips] the runs are of different brokers ({', '.join(mixed)}): flips are one broker's; "
              "give runs of one broker, or --across-brokers", file=sys.stderr)
        return 2
    cases = [outcomes(run) for run in runs]
    common = ran_in_every_run(cases)
    some_only = len(set().union(*map(set, cases)) - common)
    table = flips(cases)
    across = f" of {len(mixed)} brokers ({', '.join(mixed)})" if len(mixed) > 1 else f" of {mixed[0]}"
    print(f"[flips] {len(runs)} runs{across}: {len(common)} case(s) ran in every run"
          + (f" ({some_only} ran in some only, left out)" if some_only else "")
          + f"; {len(table)} changed outcome between runs")
    for case, seen, changes in table:
        print(f"  {changes}/{len(runs) - 1} flips  {case}: {' '.join(seen)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
