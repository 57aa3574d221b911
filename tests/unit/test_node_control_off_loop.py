"""A node-control call made through the vocabulary never stalls the test's event loop, and
one made on the loop is refused (issue 35). CON-27 once ran rabbitmqctl on the loop: the
loop watch measured the suite's own wait as lag, and a mutant's real failure came out
harness-lag instead of fail. Broker-free: a node whose rabbitmqctl is a script that
sleeps, a node that never writes a queue to disk, a restart that takes a second, each
awaited through the vocabulary while the loop watch keeps ticking."""

import asyncio
import dataclasses
import os
import socket
import threading
import time
from types import SimpleNamespace

import pytest

from amqp_conformance.amqp_faults.client import ToxiproxyAPI
from amqp_conformance.fixtures.brokers.managed import BrokerStartError, ManagedBroker, RabbitMQNode, rabbitmqctl_bound
from amqp_conformance.fixtures.core import harness_lag, timeouts
from amqp_conformance.fixtures.core.harness_lag import BlocksTheLoop, off_the_loop
from amqp_conformance.fixtures.vocabulary.broker import Broker
from amqp_conformance.fixtures.plugin import reruns
from amqp_conformance.fixtures.vocabulary.crash import QueueProcessKiller
from amqp_conformance.fixtures.wire.target import BrokerTarget

CALL_S = 1.0  # how long each node-control call below blocks its caller
TARGET = BrokerTarget("127.0.0.1", 5672, "amqp-conformance", "conformance", "secret")


class SlowNode(RabbitMQNode):
    """A started RabbitMQ node as ctl sees it (node name, environment, work dir), whose
    rabbitmqctl sleeps CALL_S and prints a pid; and whose restart takes CALL_S."""

    def __init__(self, workdir) -> None:  # no temp dir, no process: nothing to clean up
        self.workdir, self.process, self.target = workdir, None, TARGET
        self.ctl_executable = workdir / "rabbitmqctl"
        self.ctl_executable.write_text(f"#!/bin/sh\nsleep {CALL_S}\necho '<0.42.0>'\n")
        self.ctl_executable.chmod(0o755)
        # ctl runs only while the node's epmd listens: a socket stands in for it
        self.epmd = socket.create_server(("127.0.0.1", 0))
        self._ctl_running = threading.Lock()
        self._launch = ([], {"RABBITMQ_NODENAME": "amqpc-fake@localhost", "PATH": os.environ["PATH"],
                             "ERL_EPMD_PORT": str(self.epmd.getsockname()[1])})

    def crash_and_restart(self) -> float:
        off_the_loop("a restart")  # as kill() and start() refuse the loop
        time.sleep(CALL_S)
        return CALL_S


def on_node(node) -> Broker:
    broker = Broker(TARGET, None, "test_node_control_off_loop", "unit")
    broker.managed = node
    return broker


STEPS = {
    # PC-18 arms and reads the queue's process with rabbitmqctl eval
    "rabbitmqctl eval": lambda node: QueueProcessKiller(node).process("q"),
    # PC-10, TX-10, FLT-08 wait until the queue's record is on disk (here: never, so the whole bound)
    "wait until on disk": lambda node: on_node(node).wait_until_on_disk("q", within=CALL_S),
    "kill -9 and restart": lambda node: on_node(node).crash_and_restart(),
}


@pytest.mark.parametrize("step", STEPS)
def test_a_node_control_step_keeps_the_loop_ticking(tmp_path, step):
    loop = asyncio.new_event_loop()
    ticks: list[float] = []
    watch = harness_lag.LoopWatch(loop, report=lambda late: ticks.append(time.monotonic()))

    async def timed():
        started = time.monotonic()
        await STEPS[step](SlowNode(tmp_path))
        return started, time.monotonic()

    try:
        watch.start()
        started, ended = loop.run_until_complete(timed())
        worst_ms = watch.stop()
    finally:
        loop.close()
    assert ended - started >= CALL_S * 0.9, "the step did not wait for its node"
    during = [t for t in ticks if started < t < ended]
    # On the loop, the call would have held every tick back until it returned (worst lag
    # about CALL_S); off it, the watch ticks on (a loaded machine may still delay a tick).
    assert len(during) >= 3 and worst_ms < CALL_S * 1000 / 2, (len(during), worst_ms)


BLOCKING_CALLS = {
    "rabbitmqctl": lambda tmp_path: SlowNode(tmp_path).ctl("status"),
    "kill -9": lambda tmp_path: SlowNode(tmp_path).kill(),
    "wait until on disk": lambda tmp_path: ManagedBroker.wait_until_on_disk(SlowNode(tmp_path), "q", within=CALL_S),
    "Toxiproxy API": lambda tmp_path: ToxiproxyAPI("http://127.0.0.1:9").call("GET", "/version"),
}


@pytest.mark.parametrize("call", BLOCKING_CALLS)
def test_a_blocking_call_on_the_loop_is_refused(tmp_path, call):
    """Refused before it blocks: a later caller that forgets asyncio.to_thread errs at once,
    in its first run, instead of misjudging a case under load."""
    async def on_the_loop():
        BLOCKING_CALLS[call](tmp_path)

    started = time.monotonic()
    with pytest.raises(BlocksTheLoop, match="event loop"):
        asyncio.run(on_the_loop())
    assert time.monotonic() - started < CALL_S / 2


def test_the_rabbitmqctl_bound_grows_with_the_measured_lag(tmp_path, monkeypatch):
    """rabbitmqctl waits timeouts.NODE_CONTROL, which each case's setup grows with the lag
    of the last seconds, as it grows the reply and connect bounds."""
    monkeypatch.setattr(harness_lag, "host_stretch", lambda: 1.0)  # a quiet host: lag alone
    configured = timeouts.current()
    watch = harness_lag.ProcessWatch()  # not started: it has seen what note() tells it
    watch.note(2.0)
    config = SimpleNamespace(stash=pytest.Stash())
    config.stash[reruns.WATCH], config.stash[reruns._CONFIGURED] = watch, configured
    try:
        reruns.pytest_runtest_setup(SimpleNamespace(config=config, stash=pytest.Stash()))
        assert timeouts.NODE_CONTROL == harness_lag.grown(configured.NODE_CONTROL, 2.0) > configured.NODE_CONTROL
        timeouts.configure(NODE_CONTROL=CALL_S / 4)
        with pytest.raises(BrokerStartError, match="rabbitmqctl status did not finish within"):
            SlowNode(tmp_path).ctl("status")
    finally:
        timeouts.configure(**dataclasses.asdict(configured))


def test_the_rabbitmqctl_bound_stretches_with_the_host_load_up_to_the_node_net(monkeypatch):
    """A rabbitmqctl is a child process: on a host with three runnable tasks per core it
    takes about three times as long, which the harness's own lag does not show."""
    configured = timeouts.current()
    timeouts.configure(NODE_CONTROL=60.0, NODE_BACKSTOP_S=180)
    watch = harness_lag.ProcessWatch()  # not started: no lag seen
    config = SimpleNamespace(stash=pytest.Stash())
    config.stash[reruns.WATCH] = watch
    try:
        config.stash[reruns._CONFIGURED] = timeouts.current()
        for stretch, expected in ((1.0, 60.0), (2.5, 150.0), (50.0, 180.0)):
            monkeypatch.setattr(harness_lag, "host_stretch", lambda: stretch)
            reruns.pytest_runtest_setup(SimpleNamespace(config=config, stash=pytest.Stash()))
            assert rabbitmqctl_bound() == pytest.approx(expected)
        # outside a case too: a node's (or a cluster's) start in a fixture stretches alike
        timeouts.configure(NODE_CONTROL=60.0)
        assert rabbitmqctl_bound() == pytest.approx(180.0)
    finally:
        timeouts.configure(**dataclasses.asdict(configured))


def test_a_case_that_controls_a_node_gets_the_node_net_and_no_other_does():
    """pytest-timeout's net per case (collection._per_test_bound): a rule that needs a
    configured node, a case with a node-control fixture, and a rule that may wedge its
    broker (it gets a node of its own, and starting one is node control) get the node net;
    a plain case keeps the configured bound."""
    from amqp_conformance.fixtures.plugin import collection

    config = SimpleNamespace(getoption=lambda name, default=None: 60, getini=lambda name: 60)
    plain, needs = SimpleNamespace(id="ACK-01", needs=()), SimpleNamespace(id="CON-27", needs=("rabbitmqctl",))
    wedge = SimpleNamespace(id="CON-15", needs=())
    case = lambda *fixtures: SimpleNamespace(fixturenames=list(fixtures))  # noqa: E731
    assert collection._per_test_bound(config, case("broker"), plain) == 0
    assert collection._per_test_bound(config, case("broker"), needs) == timeouts.NODE_BACKSTOP_S
    assert collection._per_test_bound(config, case("broker", "queue_policy"), plain) == timeouts.NODE_BACKSTOP_S
    assert collection._per_test_bound(config, case("broker"), wedge) == timeouts.NODE_BACKSTOP_S
