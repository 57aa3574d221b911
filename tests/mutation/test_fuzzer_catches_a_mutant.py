"""The fuzzer catches a broker broken on purpose, and its script shows it without the suite
(issue 46): through unreadable_frames_ignored (what cannot be read as a frame never reaches
the broker), MDL-03's F2 (a wrong frame-end) fails, and the raw reproducer the fuzzer wrote
for it exits 1 through the same mutant and 0 against the plain node. Through the
pass-through proxy the same case passes."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.mutation.mutant_proxy import Identity, MutantProxy
from tests.mutation.mutants import MUTANTS
from tests.suite_runs import node_args, run_suite

pytestmark = [pytest.mark.integration, pytest.mark.mutation]

CASE = "F2-frame-end"
FUZZ = ["-m", "fuzz", "-k", CASE, "-n", "0"]


@pytest.mark.timeout(900)
def test_the_fuzzer_and_its_script_catch_a_broker_that_skips_unreadable_frames(tmp_path, patient_rabbitmq):
    node = patient_rabbitmq
    target = node.target
    with MutantProxy(target.host, target.port, Identity()) as passing:
        control = run_suite(tmp_path / "pass-through", *node_args(node, target.with_address(
            "127.0.0.1", passing.port).url), *FUZZ, timeout=420)
    with MutantProxy(target.host, target.port, MUTANTS["unreadable_frames_ignored"]) as proxy:
        mutant_url = target.with_address("127.0.0.1", proxy.port).url
        run = run_suite(tmp_path / "mutant", *node_args(node, mutant_url), *FUZZ, "--run-dir",
                        str(tmp_path / "mutant-run"), timeout=420)
        [script] = (tmp_path / "mutant-run" / "reproducers").glob(f"MDL-03_{CASE}_raw.py")
        through_mutant = subprocess.run([sys.executable, str(script), mutant_url], capture_output=True,
                                        text=True, timeout=60)
    on_the_node = subprocess.run([sys.executable, str(script), target.url], capture_output=True, text=True,
                                 timeout=60)
    assert [c.outcome for c in control.cases] == ["pass"], control.output[-3000:]
    assert [c.outcome for c in run.cases] == ["fail"], run.output[-3000:]
    assert through_mutant.returncode == 1, through_mutant.stdout
    assert on_the_node.returncode == 0 and "the broker behaves" in on_the_node.stdout, on_the_node.stdout
