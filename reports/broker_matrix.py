"""The rule × broker table of a matrix run (ci/matrix), from each broker's JUnit XML.

    python reports/broker_matrix.py reports/matrix/rabbitmq reports/matrix/qpid ...
    python reports/broker_matrix.py reports/matrix        # every broker run below it

Markdown on stdout, one column per broker run, in the order given.

A cell is the rule's outcome on that broker; a rule with several cases (parametrized)
shows each distinct outcome with its count, e.g. `pass 1, unsupported 1`. A `*` marks
a case the broker's baseline did not expect (a change), which is what fails CI.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from pathlib import Path

from fixtures.outcomes import SKIPPED, Outcome

ORDER = tuple(map(str, (Outcome.PASS, Outcome.INFO, Outcome.NON_STRICT, Outcome.UNSUPPORTED, Outcome.FAIL,
                       Outcome.ERROR, SKIPPED)))


def read_run(junit: Path) -> tuple[str, dict[str, Counter], dict[str, int]]:
    """The product name and, per rule id, a count of outcomes (and of changes)."""
    outcomes: dict[str, Counter] = defaultdict(Counter)
    changes: dict[str, int] = defaultdict(int)
    product = ""
    for case in ET.parse(junit).getroot().iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        if "rule" not in props:
            continue
        outcomes[props["rule"]][props.get("outcome", str(Outcome.ERROR))] += 1
        product = props.get("broker", product)
        if props.get("deviation") == "new":
            changes[props["rule"]] += 1
    return product, outcomes, changes


def cell(outcomes: Counter, changed: int) -> str:
    if not outcomes:
        return "–"
    ordered = sorted(outcomes, key=lambda o: ORDER.index(o) if o in ORDER else len(ORDER))
    text = ordered[0] if len(ordered) == 1 else ", ".join(f"{o} {outcomes[o]}" for o in ordered)
    return text + (" *" if changed else "")


def table(run_dirs: list[Path]) -> str:
    runs = [(d.name, *read_run(d / "junit.xml")) for d in run_dirs if (d / "junit.xml").exists()]
    rules = sorted({rule for run in runs for rule in run[2]}, key=_rule_key)
    header = "| rule | " + " | ".join(f"{name}<br>{product}" for name, product, _, _ in runs) + " |"
    lines = [header, "|---" * (len(runs) + 1) + "|"]
    for rule in rules:
        lines.append(f"| {rule} | " + " | ".join(cell(o.get(rule, Counter()), c.get(rule, 0))
                                                 for _, _, o, c in runs) + " |")
    return "\n".join(lines)


def _rule_key(rule: str) -> tuple[str, int]:
    area, _, number = rule.partition("-")
    return area, int(number) if number.isdigit() else 0


if __name__ == "__main__":
    dirs = [Path(arg) for arg in sys.argv[1:]] or [Path("reports/matrix")]
    if len(dirs) == 1 and not (dirs[0] / "junit.xml").exists():
        dirs = sorted(p for p in dirs[0].iterdir() if p.is_dir())
    print(table(dirs))
