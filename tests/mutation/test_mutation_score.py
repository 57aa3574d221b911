"""The suite's power, measured: every mutant of tests/mutation/mutants/ (RabbitMQ behind a proxy
that breaks one rule) must make the tests of the rules it breaks fail (MUST) or turn
non-strict (SHOULD), while a control sample of other rules keeps its baseline outcome;
and the pass-through proxy must change no outcome at all.

One RabbitMQ node serves the whole module. The baseline is a direct run against that
node of exactly the rules the mutants select. (The seam for per-broker baseline files:
`baseline()` below; once a checked-in baseline for this RabbitMQ version exists, it can
be read there instead, and the pass-through control still compares against a direct run.)

A mutant whose rules have no module in this checkout is reported "no test yet": rule
modules arrive from other branches, and after they merge every mutant has its test. A
mutant whose rule module exists and that survives fails this test: strengthen the rule's
test, never weaken the mutant.

Which mutants run: env AMQPC_MUTANTS = "all" (ci/mutation), a comma-separated list of
names, or by default CI_SUBSET (the fewest mutants that break every named rule, for .ci/run)."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

import pytest

from amqp_conformance.fixtures.brokers.managed import RabbitMQNode
from tests.mutation.mutant_proxy import MutantProxy
from tests.mutation.mutants import MUTANTS, SHOULD_RULES, Mutant
from tests.suite_runs import EXPECTING_FAILS, REPO, node_args, outcomes, run_suite

pytestmark = [pytest.mark.integration, pytest.mark.mutation]

# What .ci/run judges: the fewest mutants that together break every one of the seven named
# rules (tests.suite_runs.SEVEN_RULES; tests/unit/test_where_project_tests_run.py checks the
# cover). The other mutants of those rules break them again, beside rules of their own, and
# run in ci/mutation with everything else: consumer_timeout_hidden (CON-10/11/12, ~85 s of
# timeouts), lost_connection_loses_unacked (RD-02 through a fault, ~48 s), duplicate_confirms,
# stale_multiple_confirm, and hide_precondition_failed (14 rules at once, ~4 min).
CI_SUBSET = ["accepts_never_delivered_tag", "accepts_double_ack", "accepts_ack_on_another_channel",
             "shift_confirm_tags", "reorder_confirms", "tx_channel_accepts_confirm_select",
             "confirm_channel_accepts_tx_select", "clear_redelivered"]
# Rules whose tests keep running beside a mutant's targets: they must not move. Fast ones,
# from areas other than the mutant's.
CONTROL_POOL = ["ACK-04", "PC-02", "TX-01", "RD-02"]
CONTROLS_PER_MUTANT = 2
SCORE_FILE = REPO / "reports" / "mutation-score.md"
DEFAULT_NODE = "rabbitmq-3.10"  # the managed broker most mutants are judged against (Debian bookworm's 3.10.8)


def rules_with_modules() -> set[str]:
    """Rule ids declared by a module in this checkout's conformance/ tree (the registry,
    so a rule declared in a shared module, like FLT-05 in amqp_faults, counts too)."""
    from amqp_conformance.fixtures.commands.catalogue import load_all_rules
    from amqp_conformance.fixtures.core.rules import REGISTRY

    load_all_rules()
    return set(REGISTRY)


def not_through_proxy() -> set[str]:
    """Rules judged only against a managed broker: through the proxy the suite has an
    --amqp-url target it cannot restart nor configure, which their declarations need
    (`needs=`, amqp_conformance.fixtures.core.rules.NEEDS) or a mutant's setting does
    (tests.mutation.node_mutants.node_rules)."""
    from tests.mutation.node_mutants import node_rules

    rules_with_modules()
    return node_rules()


def keyword(rule_id: str) -> str:
    if rule_id == "FLT-05":  # its module, and the copies of other rules' tests (`[...flt05-...]`)
        return "flt_05 or flt05"
    return rule_id.lower().replace("-", "_")


def selection(rule_ids) -> str:
    return " or ".join(sorted(keyword(r) for r in rule_ids))


def area(rule_id: str) -> str:
    return rule_id.split("-")[0]


@dataclass
class Score:
    mutant: Mutant
    judged: list[str] = field(default_factory=list)  # target rules with a module here
    no_test: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    seen: dict[str, set[str]] = field(default_factory=dict)  # target rule -> outcomes of its cases
    controls: list[str] = field(default_factory=list)
    moved_controls: list[str] = field(default_factory=list)
    proxy_errors: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def killed(self) -> bool | None:
        if not self.judged:
            return None
        return set(self.failed) == set(self.judged)

    @property
    def verdict(self) -> str:
        if self.killed is None:
            return "no test yet"
        return "yes" if self.killed else "**no**"

    def row(self) -> str:
        def ids(items):
            return ", ".join(items) or "-"
        survived = [f"{r}: {'/'.join(sorted(self.seen.get(r, {'not run'})))}" for r in self.judged
                    if r not in self.failed]
        notes = []
        if survived:
            notes.append("survived " + "; ".join(survived))
        managed_only = not_through_proxy()
        if [r for r in self.no_test if r not in managed_only]:
            notes.append("no test yet: " + ids([r for r in self.no_test if r not in managed_only]))
        if set(self.no_test) & managed_only:
            notes.append("judged on the suite's own node by test_node_mutants.py, not through a URL "
                         "(needs a broker the suite restarts or configures): "
                         + ids(sorted(set(self.no_test) & managed_only)))
        if self.moved_controls:
            notes.append("controls moved: " + ids(self.moved_controls))
        if self.proxy_errors:
            notes.append("proxy errors: " + "; ".join(self.proxy_errors[:2]))
        return (f"| {self.mutant.name} | {ids(self.mutant.breaks)} | {ids(self.judged)} | {ids(self.failed)} "
                f"| {self.verdict} | {ids(self.controls) if self.judged else '-'} "
                f"| {f'{self.seconds:.1f}' if self.judged else '-'} | {'; '.join(notes)} |")


TABLE_HEAD = ("| mutant | rules it breaks | rules with a test here | rules that failed | killed "
              "| controls (kept) | s | notes |\n|---|---|---|---|---|---|---|---|")


@pytest.fixture(scope="module")
def rabbitmq(patient_rabbitmq):
    return patient_rabbitmq  # with the management API: CON-29 and CON-30 read it beside the proxy


def suite_args(node: RabbitMQNode, url: str, rule_ids) -> list[str]:
    chosen = selection(rule_ids)
    if not os.environ.get("AMQPC_MUTANTS"):
        # The CI subset judges the rules' own tests; their copies through network fault
        # profiles (FLT-05) would multiply its time by five. ci/mutation runs everything.
        chosen = f"({chosen}) and not flt05"
    # The default mutation node runs the management API (CON-29/30 read it); a newer node
    # built by ci/brokers may not, and then its rules say unsupported, not a None argument.
    management = ["--management-url", node.management_url] if node.management_url else []
    return [*node_args(node, url), *management, *EXPECTING_FAILS, "-k", chosen]


def chosen_mutants() -> list[Mutant]:
    wanted = os.environ.get("AMQPC_MUTANTS", "")
    if wanted == "all":
        return list(MUTANTS.values())
    names = [n.strip() for n in wanted.split(",") if n.strip()] or CI_SUBSET
    unknown = [n for n in names if n not in MUTANTS]
    assert not unknown, f"unknown mutants {unknown}; known: {', '.join(MUTANTS)}"
    return [MUTANTS[n] for n in names]


def plan(mutant: Mutant, existing: set[str]) -> tuple[list[str], list[str], list[str]]:
    """(target rules judged here, target rules without a module, control rules)."""
    managed_only = not_through_proxy()
    judged = [r for r in mutant.breaks if r in existing and r not in managed_only]
    no_test = [r for r in mutant.breaks if r not in existing or r in managed_only]
    target_areas = {area(r) for r in mutant.breaks}
    controls = [r for r in CONTROL_POOL if r in existing and area(r) not in target_areas][:CONTROLS_PER_MUTANT]
    return judged, no_test, controls


# Bound on each suite run here: the direct and pass-through runs of every rule the chosen
# mutants select (with AMQPC_MUTANTS=all the whole catalogue with its fault-profile copies:
# 364 s direct on 2 cores, over run_suite's default 240 s), and each mutant's run (a mutant
# that hides closes, like hide_precondition_failed, makes its 14 rules wait out every reply
# bound: over 240 s with their fault-profile copies). On a loaded 2-core host the direct
# run of the whole catalogue took over 900 s; this is a net for a hang, not a target.
WHOLE_RUN_S = 1800


@pytest.fixture(scope="module")
def baseline(rabbitmq, tmp_path_factory):
    """Per-test outcomes of a direct run (no proxy) of every rule the chosen mutants select.
    The seam for checked-in per-broker baseline files is here."""
    existing = rules_with_modules()
    needed = set()
    for mutant in chosen_mutants():
        if mutant.judged_on != DEFAULT_NODE:
            continue
        judged, _, controls = plan(mutant, existing)
        needed.update(judged, controls)
    run = run_suite(tmp_path_factory.mktemp("baseline"), *suite_args(rabbitmq, rabbitmq.target.url, needed),
                    timeout=WHOLE_RUN_S)
    assert run.cases, run.output[-3000:]
    return needed, run


@pytest.mark.timeout(3 * WHOLE_RUN_S)  # the baseline fixture's run counts here too
def test_pass_through_control_reproduces_the_baseline(rabbitmq, baseline, tmp_path):
    needed, direct = baseline
    target = rabbitmq.target
    with MutantProxy(target.host, target.port) as proxy:
        through = run_suite(tmp_path, *suite_args(rabbitmq, target.with_address("127.0.0.1", proxy.port).url, needed),
                            timeout=WHOLE_RUN_S)
    assert not proxy.errors, proxy.errors
    assert proxy.links, "the suite did not go through the proxy"
    assert outcomes(through) == outcomes(direct), (
        f"the pass-through proxy changed outcomes:\n direct:  {outcomes(direct)}\n through: {outcomes(through)}")
    print(f"pass-through control: {len(through.cases)} cases, all as in the direct run "
          f"({direct.seconds:.1f} s direct, {through.seconds:.1f} s through the proxy)")


# The whole catalogue: ~100 mutant runs of 10-250 s (3,567 s for 65 of them on a loaded
# host); each suite run has its own bound, this is the net for the loop.
@pytest.mark.timeout(4 * 3600)
def test_every_mutant_with_a_test_is_killed(rabbitmq, baseline, tmp_path):
    _, direct = baseline
    baseline_outcomes = outcomes(direct)
    existing = rules_with_modules()
    target = rabbitmq.target
    scores = []
    started = time.monotonic()
    for mutant in chosen_mutants():
        if mutant.judged_on != DEFAULT_NODE:
            continue  # test_mutants_of_newer_rabbitmq_are_killed judges it
        judged, no_test, controls = plan(mutant, existing)
        score = Score(mutant, judged=judged, no_test=no_test, controls=controls)
        scores.append(score)
        if not judged:
            continue
        with MutantProxy(target.host, target.port, mutant) as proxy:
            run = run_suite(tmp_path / mutant.name,
                            *suite_args(rabbitmq, target.with_address("127.0.0.1", proxy.port).url,
                                        judged + controls), timeout=WHOLE_RUN_S)
        score.seconds = run.seconds
        print(f"{mutant.name}: {run.seconds:.1f} s, {sorted(outcomes(run).items())}", flush=True)
        score.proxy_errors = proxy.errors
        seen = outcomes(run)
        for rule_id in judged:
            score.seen[rule_id] = {o for (r, _), o in seen.items() if r == rule_id}
            broken_as = {"fail", "non-strict"} if rule_id in SHOULD_RULES else {"fail"}
            if score.seen[rule_id] & broken_as:
                score.failed.append(rule_id)
        for key, outcome in seen.items():
            if key[0] in controls and baseline_outcomes.get(key) != outcome:
                score.moved_controls.append(f"{key[1]}: {baseline_outcomes.get(key)} -> {outcome}")
        missing_controls = {k for k in baseline_outcomes if k[0] in controls} - set(seen)
        score.moved_controls += [f"{k[1]}: not run" for k in sorted(missing_controls)]
    total = time.monotonic() - started

    judged_scores = [s for s in scores if s.killed is not None]
    killed = [s for s in judged_scores if s.killed]
    summary = (f"{len(killed)}/{len(judged_scores)} mutants with a test killed; "
               f"{len(scores) - len(judged_scores)} with no test yet; "
               f"{sum(1 for s in scores if s.moved_controls)} moved a control; {total:.0f} s")
    table = "\n".join([TABLE_HEAD, *(s.row() for s in scores)])
    print("\n" + table + "\n\n" + summary)
    SCORE_FILE.parent.mkdir(exist_ok=True)
    SCORE_FILE.write_text(f"# Mutation score\n\nRabbitMQ {rabbitmq.name} node, "
                          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
                          f"mutants: {os.environ.get('AMQPC_MUTANTS') or 'CI subset'}\n\n{table}\n\n{summary}\n")

    survivors = [s.mutant.name for s in judged_scores if not s.killed]
    assert not survivors, f"mutants survived (strengthen their rules' tests): {survivors}\n{table}"
    moved = [f"{s.mutant.name}: {s.moved_controls}" for s in scores if s.moved_controls]
    assert not moved, "mutants changed rules they do not break:\n" + "\n".join(moved)
    errors = [f"{s.mutant.name}: {s.proxy_errors}" for s in scores if s.proxy_errors]
    assert not errors, "the proxy itself failed:\n" + "\n".join(errors)


@pytest.mark.timeout(900)
def test_mutants_of_newer_rabbitmq_are_killed(tmp_path):
    """Mutants of rules that only newer RabbitMQ has (Mutant.judged_on, e.g. x-consumer-timeout
    from 3.12) run against that managed node, built by ci/brokers; elsewhere this skips,
    saying why. The node's global consumer timeout is an hour and its channel tick 500 ms,
    so only the per-queue ways can time a consumer out; the global-way cases are left out
    (they would wait the hour)."""
    from amqp_conformance.fixtures.vocabulary.consumer_timeouts import LONG_GLOBAL_TIMEOUT_MS
    from amqp_conformance.fixtures.brokers.managed import BrokerStartError
    from amqp_conformance.fixtures.brokers.registry import managed_broker

    existing = rules_with_modules()
    chosen = [m for m in chosen_mutants() if m.judged_on != DEFAULT_NODE]
    if not chosen:
        pytest.skip("no chosen mutant is judged on a newer RabbitMQ (AMQPC_MUTANTS=consumer_timeout_argument_stripped)")
    for node_name in sorted({m.judged_on for m in chosen}):
        try:
            node = managed_broker(node_name)
        except BrokerStartError as missing:
            pytest.skip(f"mutants judged on {node_name} cannot run here: {missing}")
        node.consumer_timeout_ms = LONG_GLOBAL_TIMEOUT_MS
        with node as target:
            for mutant in (m for m in chosen if m.judged_on == node_name):
                judged, _, _ = plan(mutant, existing)
                assert judged, f"{mutant.name}: none of {mutant.breaks} has a module here"
                args = suite_args(node, target.url, judged)
                args[-1] = f"({selection(judged)}) and not global"
                direct = run_suite(tmp_path / f"{mutant.name}-direct", *args)
                with MutantProxy(target.host, target.port, mutant) as proxy:
                    args = suite_args(node, target.with_address("127.0.0.1", proxy.port).url, judged)
                    args[-1] = f"({selection(judged)}) and not global"
                    through = run_suite(tmp_path / mutant.name, *args)
                before, after = outcomes(direct), outcomes(through)
                print(f"{mutant.name} on {node_name}: direct {sorted(before.items())}\n through {sorted(after.items())}")
                assert not proxy.errors, proxy.errors
                for rule_id in judged:
                    assert "pass" in {o for (r, _), o in before.items() if r == rule_id}, (
                        f"{rule_id} has no passing case on {node_name} to break: {before}")
                    assert "fail" in {o for (r, _), o in after.items() if r == rule_id}, (
                        f"{mutant.name} survived on {node_name}: {rule_id} cases {after}")
