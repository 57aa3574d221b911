"""Per-case flips over stored runs: `python -m amqp_conformance.reports.flips RUN_DIR...` reads each run's
results.jsonl (the outcome of every case's record) and prints, for each case whose outcome
was not the same in every run, its outcomes in run order and how often it changed.
ci/suite --repeat N prints this after its N runs. A folder that is not a stored run (no
manifest.json) is refused with one line and exit status 2: flips over nothing prove nothing."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from amqp_conformance.fixtures.core.outcomes import RESULTS_FILE
from amqp_conformance.fixtures.core.stored_runs import why_not_a_run


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


def flips(runs: list[dict[str, str]]) -> list[tuple[str, list[str], int]]:
    """(case, outcome per run with "-" where it did not run, number of changes) for every
    case that did not show one outcome in all runs."""
    found = []
    for case in sorted({c for run in runs for c in run}):
        seen = [run.get(case, "-") for run in runs]
        changes = sum(1 for a, b in zip(seen, seen[1:]) if a != b)
        if changes:
            found.append((case, seen, changes))
    return found


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m amqp_conformance.reports.flips",
                                     description="The cases whose outcome changed between stored runs.")
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR", help="stored run folders, in run order")
    runs = parser.parse_args(argv).runs
    refused = [problem for problem in map(why_not_a_run, runs) if problem]
    for problem in refused:
        print(f"[flips] {problem}", file=sys.stderr)
    if refused:
        return 2
    table = flips([outcomes(run) for run in runs])
    print(f"[flips] {len(runs)} runs, {len(table)} case(s) changed outcome between runs")
    for case, seen, changes in table:
        print(f"  {changes}/{len(runs) - 1} flips  {case}: {' '.join(seen)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
