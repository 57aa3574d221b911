"""A broker that reads the 8-octet protocol header with one read fails FLT-05's slicer
copies on every run (issue 46, item 5): through protocol_header_read_once, each of a few
slicer copies, run three times, fails (its header came in two writes with a pause, from the
profile's header splitter), while the same cases through the pass-through proxy, and the
latency copies through the mutant (their header in one write), keep passing."""

from __future__ import annotations

import pytest

from tests.mutation.mutant_proxy import Identity, MutantProxy
from tests.mutation.mutants import MUTANTS
from tests.suite_runs import node_args, run_suite

pytestmark = [pytest.mark.integration, pytest.mark.mutation]

CASES = "(ACK-04 or PC-02 or TX-01) and (flt05-slicer or flt05-latency)"
RUNS = 3


@pytest.mark.timeout(1500)
def test_a_header_read_with_one_read_fails_every_slicer_copy_every_run(tmp_path, patient_rabbitmq):
    node = patient_rabbitmq
    verdicts: list[dict[str, str]] = []
    target = node.target
    with MutantProxy(target.host, target.port, Identity()) as passing:
        control = run_suite(tmp_path / "pass-through", *node_args(node, target.with_address(
            "127.0.0.1", passing.port).url), "-k", CASES, timeout=420)
    for attempt in range(RUNS):
        with MutantProxy(target.host, target.port, MUTANTS["protocol_header_read_once"]) as proxy:
            run = run_suite(tmp_path / f"mutant-{attempt}", *node_args(node, target.with_address(
                "127.0.0.1", proxy.port).url), "-k", CASES, timeout=420)
        assert not proxy.errors, proxy.errors
        verdicts.append({c.name: c.outcome for c in run.cases})
    controls = {c.name: c.outcome for c in control.cases}
    assert controls and all(o == "pass" for o in controls.values()), f"{controls}\n{control.output[-3000:]}"
    for seen in verdicts:
        sliced = {name: o for name, o in seen.items() if "flt05-slicer" in name}
        kept = {name: o for name, o in seen.items() if "flt05-latency" in name}
        assert sliced and all(o == "fail" for o in sliced.values()), f"a split header went unnoticed: {seen}"
        assert kept and all(o == "pass" for o in kept.values()), f"a header in one write was refused: {seen}"
