"""Slow detection is not loss. A broker that closes a silent connection late (here RabbitMQ
told a 3 s heartbeat through a frame-rewriting proxy while the client agreed on 1 s: it
still sends heartbeats every 1.5 s, but closes 6-9 s after the silence, where the spec's
two missed heartbeats give 2 s) keeps FLT-03[silent-peer] and RD-02[silent-peer] from
failing: every unacked delivery comes back once it closes. The late close is reported as
a non-strict finding, with the latency, apart from the loss check."""

import pytest
from pamqp import commands as spec

from amqp_conformance.fixtures.brokers.managed import RabbitMQNode
from tests.mutation.mutant_proxy import Command, Identity, MutantProxy
from tests.suite_runs import run_suite

pytestmark = [pytest.mark.integration, pytest.mark.timeout(400)]


class LateHeartbeatCheck(Identity):
    """Tells the broker a heartbeat three times the one the client agreed on."""

    name = "late-heartbeat-check"

    def from_client(self, link, cmd: Command):
        if isinstance(cmd.method, spec.Connection.TuneOk) and cmd.method.heartbeat:
            tripled = spec.Connection.TuneOk(**{**dict(cmd.method), "heartbeat": cmd.method.heartbeat * 3})
            return [Command(cmd.channel, tripled, cmd.header, cmd.bodies)]
        return None


class NodeWithoutEarlyTimeout(RabbitMQNode):
    """No consumer timeout before the late close: only the heartbeat can requeue."""

    consumer_timeout_ms = 60_000


def test_a_late_close_is_reported_and_nothing_is_called_lost(tmp_path):
    node = NodeWithoutEarlyTimeout()
    node.start()
    try:
        with MutantProxy(node.target.host, node.target.port, LateHeartbeatCheck()) as proxy:
            url = node.target.with_address("127.0.0.1", proxy.port).url
            run = run_suite(tmp_path, "--amqp-url", url, "--consumer-timeout-ms", str(node.consumer_timeout_ms),
                            "-p", "no:randomly", "-k", "silent and (flt_03 or rd_02) and not flt05", timeout=300)
    finally:
        node.cleanup()
    assert not proxy.errors, proxy.errors
    judged = {case.properties["rule"]: case for case in run.cases}
    assert set(judged) == {"FLT-03", "RD-02"}, run.output[-3000:]
    for rule_id, case in judged.items():
        assert case.outcome == "non-strict", (rule_id, case.outcome, case.failure, run.output[-3000:])
        closed = case.properties["silent peer closed by the broker"]
        seconds = float(closed.split("after ")[1].split(" s")[0])
        assert 4.0 <= seconds <= 12.0, closed
        assert case.properties["history"].split("lost ")[1].startswith("0,"), case.properties["history"]
