"""Per-case flips over stored runs: `python -m reports.flips RUN_DIR...` reads each run's
junit.xml (the `outcome` property of every case) and prints, for each case whose outcome
was not the same in every run, its outcomes in run order and how often it changed.
ci/suite --repeat N prints this after its N runs."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def outcomes(run: Path) -> dict[str, str]:
    """case id (module::name) -> outcome class of one stored run ({} without junit.xml)."""
    junit = run / "junit.xml"
    if not junit.is_file():
        return {}
    cases = {}
    for case in ET.parse(junit).iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        if "outcome" in props:
            cases[f"{case.get('classname')}::{case.get('name')}"] = props["outcome"]
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
    runs = [Path(a) for a in argv]
    table = flips([outcomes(run) for run in runs])
    print(f"[flips] {len(runs)} runs, {len(table)} case(s) changed outcome between runs")
    for case, seen, changes in table:
        print(f"  {changes}/{len(runs) - 1} flips  {case}: {' '.join(seen)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
