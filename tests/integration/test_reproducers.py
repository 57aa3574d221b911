"""Every fail and non-strict case leaves a standalone reproducer (fixtures/reproducer) in its
run folder. For garagemq and Qpid Broker-J, the suite runs the deterministic deviations of
the broker's baseline (tests/replay_cases: fail or non-strict with no `also`, replayable
alone) and must match the baseline; then each reproducer runs alone (pamqp only, the URL as
argument) against a node of that broker (a fresh one for each that may wedge a broker known
to deadlock), where the broker's replies must be the same
as in the suite's run, and against a RabbitMQ 3.10.8 node (where the baseline expects each
of these cases to pass), where they must differ. One node of each broker serves every replay.
ci/test replays a representative share of the cases (two of each rule area), ci/mutation all."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from amqp_conformance.fixtures.plugin import baselines, reproducer
from amqp_conformance.fixtures.core import broker_facts
from amqp_conformance.fixtures.brokers.registry import managed_broker
from amqp_conformance.fixtures.core.outcomes import PASSING
from amqp_conformance.fixtures.brokers.provisioned import QPID_VERSION, qpid_home
from tests.suite_runs import run_suite

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

SAME = "same replies as in the suite's run: yes"
DIFFERENT = "same replies as in the suite's run: no"
PARALLEL_REPLAYS = 6  # each script waits on the broker most of its time


@pytest.fixture
def rabbitmq(plain_rabbitmq):
    """The worker's plain RabbitMQ node (tests/conftest.py), shared with the other files there."""
    return plain_rabbitmq


def has_deadlocked(broker: str) -> bool:
    """A broker some rule has wedged (conformance/brokers.toml, `seen_on`)."""
    return any(broker in wedge.seen_on for wedge in broker_facts.load().wedges.values())


def replay(node, scripts: dict[str, Path], *, known_to_deadlock: bool) -> dict[str, subprocess.CompletedProcess]:
    """Run each script alone against `node`, several at once; afterwards, one by one in the
    suite's order, those that may wedge a broker (WEDGE_ORDER). On a broker known to
    deadlock (has_deadlocked), one script at a time, and each wedge-prone one but the
    first on the node restarted (the suite gives each a node of its own)."""
    def run(script: Path) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(script), node.target.url], capture_output=True, text=True,
                              timeout=120)

    def wedge_order(script: Path):
        line = next(line for line in script.read_text().splitlines() if line.startswith("WEDGE_ORDER = "))
        return ast.literal_eval(line.removeprefix("WEDGE_ORDER = "))

    orders = {case: wedge_order(script) for case, script in scripts.items()}
    harmless = [case for case, order in orders.items() if order is None]
    # A broker known to deadlock gets one replay at a time, as the suite ran them (-n 0):
    # garagemq deadlocks on concurrent connection closes (its pull 99).
    with ThreadPoolExecutor(1 if known_to_deadlock else PARALLEL_REPLAYS) as pool:
        done = dict(zip(harmless, pool.map(run, [scripts[case] for case in harmless])))
    for n, case in enumerate(sorted(set(scripts) - set(harmless), key=lambda case: orders[case])):
        if n and known_to_deadlock:
            node.stop()
            node.start()
        done[case] = run(scripts[case])
    return done


# ci/test replays a representative share (tests/integration/replay_cases.PER_AREA of each
# rule area) on garagemq; ci/mutation (`full`) replays every replayable deviation, and
# Broker-J's share too. The replay machinery is the same for every broker, and Broker-J's
# two JVM boots (the run's and the replay's) cost about 35 s of CPU.
REPLAYS = [pytest.param(broker, share, id=f"{broker}-{share}",
                        marks=() if (broker, share) == ("garagemq", "representative") else pytest.mark.full)
           for share in ("representative", "all") for broker in ("garagemq", "qpid")]


@pytest.mark.parametrize(("broker", "share"), REPLAYS)
def test_reproducers_show_the_deviation_alone_and_rabbitmq_the_rule(broker, share, rabbitmq, tmp_path):
    if broker == "qpid" and not (qpid_home() / "lib").is_dir():
        pytest.skip(f"Qpid Broker-J {QPID_VERSION} is not built on this machine: run ci/brokers qpid first")
    listing = tmp_path / "cases.json"
    run_dir = tmp_path / "run"
    run = run_suite(tmp_path, "--broker", broker, "-n", "0", "-p", "no:randomly", "-p", "tests.integration.replay_cases",
                    "--run-dir", str(run_dir), timeout=600,
                    env={"AMQPC_REPLAY_BROKER": broker, "AMQPC_REPLAY_LIST": str(listing),
                         "AMQPC_REPLAY_SHARE": share})
    cases = json.loads(listing.read_text())
    assert not cases["not_collected"], cases["not_collected"]
    # The chosen cases ran as the baseline says (exit 1 on any change).
    assert run.returncode == 0, run.output[-3000:]
    scripts = {case: run_dir / "reproducers" / reproducer.file_name(case) for case in cases["replayable"]}
    assert scripts and all(script.exists() for script in scripts.values()), run.output[-3000:]
    # A case whose input went over a raw socket says so in its script (found only once it ran).
    for case, script in list(scripts.items()):
        why = reproducer.not_replayable_reason(script.read_text())
        if why is not None:
            cases["not_replayable"][case] = why
            del scripts[case]

    node = managed_broker(broker)
    with node:  # ManagedBroker's own life cycle: start() on entry, cleanup() on exit
        on_broker = replay(node, scripts, known_to_deadlock=has_deadlocked(broker))
    on_rabbitmq = replay(rabbitmq, scripts, known_to_deadlock=False)

    rabbitmq_expects = baselines.load(baselines.path_of(rabbitmq.name))
    problems = []
    for case in scripts:
        mine, theirs = on_broker[case], on_rabbitmq[case]
        if mine.returncode != 1 or SAME not in mine.stdout:  # 1: the deviation reproduces
            problems.append(f"{case} on {broker}: exit {mine.returncode}\n{mine.stdout[-1500:]}{mine.stderr[-1500:]}")
        expected_on_rabbitmq = baselines.expectation_for(rabbitmq_expects, case)
        if expected_on_rabbitmq is not None and expected_on_rabbitmq.outcome not in PASSING:
            continue  # RabbitMQ has its own deviation here: its replies are no reference
        if theirs.returncode != 0 or DIFFERENT not in theirs.stdout:  # 0: the broker behaves
            problems.append(f"{case} on RabbitMQ: exit {theirs.returncode}\n{theirs.stdout[-1500:]}{theirs.stderr[-1500:]}")
    reproduced = len(scripts) - sum(1 for p in problems if f" on {broker}:" in p)
    print(f"{broker}: {reproduced} of {len(scripts)} reproducers show the deviation alone; "
          f"{len(cases['not_replayable'])} cases not replayable alone: {sorted(cases['not_replayable'])}; "
          f"{len(cases['left_to_the_full_set'])} left to the full set (ci/mutation)")
    assert not problems, "\n\n".join(problems)
