"""The cases whose reproducers tests/integration/test_reproducers.py replays, derived, never typed:
the deterministic deviations of a broker's baseline (fail or non-strict, with no other
outcome in `also`) whose reproducer can be replayed alone (amqp_conformance.fixtures.plugin.reproducer).

Loaded into a suite run with `-p tests.integration.replay_cases`: with AMQPC_REPLAY_BROKER=<broker>
it keeps only those cases, and writes the keys it kept, and the ones it left out as not
replayable alone (with the reason), as JSON to AMQPC_REPLAY_LIST. With
AMQPC_REPLAY_SHARE=representative it keeps the first PER_AREA of each rule area (ACK, EX,
FR, ...) in the order of their keys, which ci/test replays; the rest are listed as
`left_to_the_full_set` (ci/mutation replays every one)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from amqp_conformance.fixtures.plugin import baselines, reproducer
from amqp_conformance.fixtures.plugin.selection import ON_DEMAND_MARKERS
from amqp_conformance.fixtures.core.outcomes import Outcome

DEVIATIONS = (str(Outcome.FAIL), str(Outcome.NON_STRICT))
PER_AREA = 1  # replayable cases of each rule area in the representative share (two each took 190 s of ci/test)
# Cases the suite left out before this plugin chose (an on-demand marker the run's -m does
# not name: the fuzzer's MDL-03 runs only with -m fuzz), by case key and marker.
ON_DEMAND_LEFT_OUT: dict[str, str] = {}


def pytest_deselected(items: list[pytest.Item]) -> None:
    for item in items:
        marker = next((name for name in ON_DEMAND_MARKERS if item.get_closest_marker(name)), None)
        if marker is not None:
            ON_DEMAND_LEFT_OUT.setdefault(baselines.case_key(item), marker)

def deterministic_deviations(broker: str) -> dict[str, baselines.Expectation]:
    """The baseline's fail and non-strict cases that show one outcome only."""
    return {case: expected for case, expected in baselines.load(baselines.path_of(broker)).items()
            if expected.outcome in DEVIATIONS and not expected.also}


@pytest.hookimpl(trylast=True)  # after the suite's plugin has marked the items
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    broker = os.environ.get("AMQPC_REPLAY_BROKER")
    if not broker:
        return
    wanted = deterministic_deviations(broker)
    kept, not_replayable = [], {}
    for item in items:
        case = baselines.case_key(item)
        if case not in wanted:
            continue
        why = wanted[case].replies_vary or reproducer.not_replayable_because(item, item.module.RULE.id)
        if why is None:
            kept.append(item)
        else:
            not_replayable[case] = why
    on_demand = {case: marker for case, marker in ON_DEMAND_LEFT_OUT.items() if case in wanted}
    left: list[str] = []
    if os.environ.get("AMQPC_REPLAY_SHARE") == "representative":
        kept, left = representative(kept)
    config.hook.pytest_deselected(items=[item for item in items if item not in kept])
    items[:] = kept
    listing = Path(os.environ["AMQPC_REPLAY_LIST"])
    if listing.exists():
        return  # a rerun after the run collects a few cases again: the first collection's listing stands
    listing.write_text(json.dumps({
        "replayable": sorted(baselines.case_key(item) for item in kept),
        "not_replayable": not_replayable,
        "on_demand": {case: f"runs only with -m {marker}" for case, marker in sorted(on_demand.items())},
        "not_collected": sorted(set(wanted) - {baselines.case_key(i) for i in kept} - set(not_replayable) - set(left)
                                - set(on_demand)),
        "left_to_the_full_set": sorted(left),
    }, indent=1))


def representative(items: list[pytest.Item]) -> tuple[list[pytest.Item], list[str]]:
    """The first PER_AREA items of each rule area by case key, in their run order, and the
    keys of the others."""
    chosen: set[str] = set()
    for area in sorted({baselines.case_key(item).split("-")[0] for item in items}):
        keys = sorted(key for key in map(baselines.case_key, items) if key.split("-")[0] == area)
        chosen.update(keys[:PER_AREA])
    return ([item for item in items if baselines.case_key(item) in chosen],
            sorted(baselines.case_key(item) for item in items if baselines.case_key(item) not in chosen))
