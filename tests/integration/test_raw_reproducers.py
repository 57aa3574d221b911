"""A framing case judged by the invariants after its bad input (garagemq's process dies on
FR-18's unknown class) gets a raw reproducer: its bytes, sent again by a script that needs
Python alone, then the bystander and a fresh connection checked. It exits 1 against a fresh
garagemq node and 0 against RabbitMQ, which keeps serving."""

from __future__ import annotations

import subprocess
import sys

from amqp_conformance.fixtures.brokers.registry import managed_broker
from tests.suite_runs import run_suite


def test_an_invariant_broken_by_raw_bytes_has_a_raw_reproducer(tmp_path, plain_rabbitmq):
    run_dir = tmp_path / "run"
    run = run_suite(tmp_path, "--broker", "garagemq", "-n", "0", "-k", "FR-18 and unknown-class", "--run-dir",
                    str(run_dir))
    assert run.returncode == 0, run.output[-3000:]  # the baseline expects the fail
    [script] = (run_dir / "reproducers").glob("*unknown-class_raw.py")
    assert "REQUIREMENT = 'after the bad input: the broker process is alive" in script.read_text()  # the invariant

    def replay(url: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(script), url], capture_output=True, text=True, timeout=60)

    with managed_broker("garagemq") as garagemq:  # a fresh node: the suite's died of the case
        on_garagemq = replay(garagemq.url)
    assert on_garagemq.returncode == 1 and "a fresh connection fails" in on_garagemq.stdout, on_garagemq.stdout
    on_rabbitmq = replay(plain_rabbitmq.target.url)
    assert on_rabbitmq.returncode == 0 and "the broker behaves" in on_rabbitmq.stdout, on_rabbitmq.stdout
