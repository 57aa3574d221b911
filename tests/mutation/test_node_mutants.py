"""The mutants of the rules judged only on the suite's own nodes are killed
(tests/mutation/node_mutants.py): a suite run on a managed RabbitMQ 4.0.5 (the patient
node needs consumer_max_per_channel, from 3.12.14), with the mutant proxy in front of the
worker's node, each case judged through the pass-through proxy (it must pass: the proxy
alone changes nothing) and through every mutant that breaks its rule (at least one case
of each rule a mutant breaks must fail).

By default (.ci/run) the rules of the patient node (CON-24, CON-25, CON-27, PC-18, QU-23), on
classic queues: 18 cases on both queue types took 183 s of ci/test. With AMQPC_MUTANTS=all
(ci/mutation) their quorum-queue cases too, and the kill -9 rules PC-10, TX-10 and FLT-08,
whose node restarts take most of their time."""

from __future__ import annotations

import os

import pytest

from amqp_conformance.fixtures.core.rules import REGISTRY
from tests.mutation.node_mutants import PASS_THROUGH, node_mutants, node_rules
from tests.suite_runs import EXPECTING_FAILS, run_suite

pytestmark = [pytest.mark.integration, pytest.mark.mutation]

JUDGED_ON = "rabbitmq-4.0"


def chosen_rules() -> list[str]:
    from amqp_conformance.fixtures.commands.catalogue import load_all_rules

    load_all_rules()
    rules = node_rules()
    if os.environ.get("AMQPC_MUTANTS") != "all":  # a node killed and started again, per case: ci/mutation only
        rules -= {declared.id for declared in REGISTRY.values() if "restart" in declared.needs}
    return sorted(rules)


def front_of(case_name: str) -> str | None:
    fronts = [PASS_THROUGH, *node_mutants()]
    return next((f for f in fronts if f"-{f}]" in case_name or f"[{f}-" in case_name or f"[{f}]" in case_name),
                None)


@pytest.mark.timeout(1500)
def test_every_node_mutant_fails_its_rule_and_the_pass_through_passes(tmp_path):
    rules = chosen_rules()
    selection = "(" + " or ".join(r.lower().replace("-", "_") for r in rules) + ") and not flt05"
    if os.environ.get("AMQPC_MUTANTS") != "all":
        # ci/test: each rule's cases on a classic queue (11 of 18); the same mutants break its
        # quorum-queue cases too, which ci/mutation judges.
        selection += " and not quorum"
    run = run_suite(tmp_path, "--broker", JUDGED_ON, "-p", "no:xdist", "-p", "tests.mutation.node_mutants",
                    "--no-baseline", *EXPECTING_FAILS, "-k", selection, timeout=1400)
    assert run.cases, run.output[-3000:]
    failed_by: dict[tuple[str, str], set[str]] = {}
    for case in run.cases:
        front, rule = front_of(case.name), case.properties.get("rule")
        assert front is not None, f"{case.name} ran without the proxy in front of its node"
        assert case.properties.get("mutant_proxy_errors") == "-", (case.name, case.properties)
        if front == PASS_THROUGH:
            assert case.outcome == "pass", (case.name, case.outcome, case.failure)
        else:
            failed_by.setdefault((front, rule), set()).add(case.outcome)
    expected = {(name, rule) for name, mutant in node_mutants().items() for rule in mutant.breaks if rule in rules}
    assert set(failed_by) == expected, (sorted(failed_by), sorted(expected), run.output[-3000:])
    survivors = sorted(f"{name} on {rule}: {sorted(seen)}" for (name, rule), seen in failed_by.items()
                       if "fail" not in seen)
    assert not survivors, f"mutants survived (strengthen the rule's test): {survivors}"
    print(f"{len(run.cases)} cases in {run.seconds:.0f} s: " + ", ".join(f"{c.name} {c.outcome}" for c in run.cases))
