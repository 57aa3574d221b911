"""Every fail and non-strict case leaves a standalone reproducer (fixtures/reproducer) in its
run folder. Run alone (pamqp only, the URL as argument) against a fresh garagemq node,
the reproducers of two deterministic garagemq deviations show the same deviation; against
RabbitMQ they show what the rules expect. A fault case's reproducer says why it cannot
be replayed alone."""

import subprocess
import sys

import pytest

from fixtures.managed_brokers import GarageMQ, RabbitMQNode
from tests.suite_runs import run_suite

pytestmark = [pytest.mark.integration, pytest.mark.timeout(400)]

CASES = "(ack_07 or con_03 or (flt_07 and latency and channel)) and not flt05"


def replay(node, scripts):
    node.start()
    try:
        return {script.name: subprocess.run([sys.executable, str(script), node.target.url], capture_output=True,
                                             text=True, timeout=60) for script in scripts}
    finally:
        node.cleanup()


def test_reproducers_replay_the_deviation_alone(tmp_path):
    run_dir = tmp_path / "run"
    run = run_suite(tmp_path, "--broker", "garagemq", "-n", "0", "-p", "no:randomly", "-k", CASES,
                    "--run-dir", str(run_dir), timeout=300)
    scripts = {p.name.split("_")[1]: p for p in (run_dir / "reproducers").glob("*.py")}
    assert {"multiple", "cancelling", "acked"} <= set(scripts), (sorted(scripts), run.output[-2000:])
    fault_case = scripts.pop("acked")
    done = subprocess.run([sys.executable, str(fault_case), "amqp://x@localhost/"], capture_output=True, text=True)
    assert done.returncode == 2 and "not replayable alone" in done.stdout, done.stdout

    on_garagemq = replay(GarageMQ(), scripts.values())
    on_rabbitmq = replay(RabbitMQNode(), scripts.values())
    ack_07, con_03 = scripts["multiple"].name, scripts["cancelling"].name
    for runs in (on_garagemq, on_rabbitmq):
        for done in runs.values():
            assert done.returncode == 0 and "the rule expects:" in done.stdout, done.stdout + done.stderr
    # garagemq: the double multiple ack leaves the channel open; an unknown consumer tag closes it.
    assert "Channel.Close(" not in on_garagemq[ack_07].stdout, on_garagemq[ack_07].stdout
    assert "Channel.Close({'reply_code': 404" in on_garagemq[con_03].stdout, on_garagemq[con_03].stdout
    # RabbitMQ: what the rules expect.
    assert "Channel.Close({'reply_code': 406" in on_rabbitmq[ack_07].stdout, on_rabbitmq[ack_07].stdout
    assert "Basic.CancelOk(" in on_rabbitmq[con_03].stdout, on_rabbitmq[con_03].stdout
