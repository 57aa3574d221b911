"""The Toxiproxy adapter against the real Toxiproxy server (v2.12.0 from ci/setup):
proxies and toxics work, each gap of toxiproxy-python is closed (per-adapter endpoint,
HTTP timeouts, HTTP 500 as an error, async calls), and a run without any
server reports fault tests unsupported."""

from __future__ import annotations

import asyncio
import socket
import socketserver
import threading
import time

import pytest
import toxiproxy.api

from amqp_conformance.amqp_faults import Toxic, ToxiproxyAPI, ToxiproxyError, latency
from amqp_conformance.amqp_faults.server import ToxiproxyServer, ToxiproxyUnavailable, find_binary
from tests.suite_runs import node_args, run_suite

try:
    find_binary()
    HAVE_SERVER = True
except ToxiproxyUnavailable:
    HAVE_SERVER = False
needs_server = pytest.mark.skipif(not HAVE_SERVER, reason="toxiproxy-server not installed (ci/setup builds it)")


class _Echo(socketserver.BaseRequestHandler):
    def handle(self):
        while data := self.request.recv(4096):
            self.request.sendall(data)


@pytest.fixture(scope="module")
def echo_port():
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Echo)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()


@pytest.fixture(scope="module")
def api():
    server = ToxiproxyServer()
    yield ToxiproxyAPI(server.start())
    server.stop()


def round_trip(port: int, payload: bytes = b"ping") -> float:
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=3) as sock:
        sock.sendall(payload)
        assert sock.recv(100) == payload
    return time.monotonic() - started


@needs_server
def test_the_pinned_server_runs_and_says_its_version(api):
    assert api.version() == "2.12.0"


@needs_server
def test_a_proxy_forwards_and_a_latency_toxic_delays_both_ways(api, echo_port):
    proxy = api.create_proxy("adapter-latency", f"127.0.0.1:{echo_port}")
    try:
        assert proxy.host == "127.0.0.1" and proxy.port > 0
        assert round_trip(proxy.port) < 0.1
        for toxic in latency(100).toxics:
            proxy.add_toxic(toxic)
        assert proxy.toxic_names() == ["latency-100ms-downstream", "latency-100ms-upstream"]
        assert round_trip(proxy.port) >= 0.2
        for toxic in latency(100).toxics:
            proxy.remove_toxic(toxic.key)
        assert round_trip(proxy.port) < 0.1
    finally:
        proxy.delete()


@needs_server
def test_a_disabled_proxy_refuses_and_comes_back(api, echo_port):
    proxy = api.create_proxy("adapter-down", f"127.0.0.1:{echo_port}")
    try:
        proxy.disable()
        with pytest.raises(ConnectionRefusedError):
            round_trip(proxy.port)
        proxy.enable()
        assert round_trip(proxy.port) < 0.5
    finally:
        proxy.delete()


@needs_server
def test_http_500_is_an_error_with_the_servers_text_not_a_key_error(api, echo_port):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(ToxiproxyError, match="500.*address already in use"):
            api.create_proxy("adapter-clash", f"127.0.0.1:{echo_port}", listen=f"127.0.0.1:{taken.getsockname()[1]}")


@needs_server
def test_refusals_of_the_client_become_adapter_errors(api, echo_port):
    proxy = api.create_proxy("adapter-refusals", f"127.0.0.1:{echo_port}")
    try:
        with pytest.raises(ToxiproxyError, match="InvalidToxic"):
            proxy.add_toxic(Toxic("no-such-toxic", "downstream", {}))
        with pytest.raises(ToxiproxyError, match="NotFound"):
            proxy.remove_toxic("never-added")
    finally:
        proxy.delete()


@needs_server
def test_each_adapter_keeps_its_own_endpoint(api, echo_port):
    other = ToxiproxyServer()
    other_api = ToxiproxyAPI(other.start())
    try:
        proxy = other_api.create_proxy("adapter-elsewhere", f"127.0.0.1:{echo_port}")
        assert "adapter-elsewhere" in other_api.proxy_names()
        assert "adapter-elsewhere" not in api.proxy_names()
        assert (toxiproxy.api.APIConsumer.host, toxiproxy.api.APIConsumer.port) == ("127.0.0.1", 8474)
        proxy.delete()
    finally:
        other.stop()


def test_a_server_that_never_answers_times_out():
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # the kernel accepts; nobody ever answers
        started = time.monotonic()
        with pytest.raises(ToxiproxyError, match="unreachable"):
            ToxiproxyAPI(f"http://127.0.0.1:{silent.getsockname()[1]}", timeout=0.5).version()
        assert time.monotonic() - started < 3


@needs_server
def test_async_calls_leave_the_event_loop_free(api, echo_port):
    proxy = api.create_proxy("adapter-async", f"127.0.0.1:{echo_port}")

    async def scenario():
        ticks = 0

        async def ticker():
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.001)

        task = asyncio.ensure_future(ticker())
        for _ in range(5):
            await proxy.aadd_toxic(Toxic("latency", "downstream", {"latency": 1}, name="l"))
            await proxy.aremove_toxic("l")
        task.cancel()
        return ticks

    try:
        assert asyncio.run(scenario()) > 1
    finally:
        proxy.delete()


def test_no_binary_anywhere_is_a_clear_unavailability(monkeypatch, tmp_path):
    monkeypatch.setenv("TOXIPROXY_SERVER", str(tmp_path / "missing"))
    monkeypatch.setenv("AMQP_CONFORMANCE_CACHE", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ToxiproxyUnavailable, match="on PATH, or give --toxiproxy-server PATH or --toxiproxy-url URL"):
        find_binary()


def test_a_given_binary_is_the_only_one_looked_at(monkeypatch, tmp_path):
    binary = tmp_path / "toxiproxy-server"
    binary.write_text("#!/bin/sh\n")
    with pytest.raises(ToxiproxyUnavailable, match="--toxiproxy-server .*: no executable file there"):
        find_binary(str(binary))  # not executable: no fallback to $TOXIPROXY_SERVER, the cache or PATH
    binary.chmod(0o755)
    assert find_binary(str(binary)) == binary


@pytest.mark.integration
@pytest.mark.timeout(300)  # a suite run in a subprocess (run_suite's own bound: 240 s), not a 60 s unit test
def test_without_a_server_fault_tests_are_unsupported_never_passed(tmp_path, plain_rabbitmq):
    with socket.socket() as nothing:
        nothing.bind(("127.0.0.1", 0))
        port = nothing.getsockname()[1]
    # The worker's plain node at its URL (FLT-04 and the FLT-05 copies need no node of the
    # suite's own: a proxy fronts any URL), so only the missing server can make them unsupported.
    run = run_suite(tmp_path, *node_args(plain_rabbitmq),
                    "-k", "flt_04 or (ack_04 and flt05-latency)", f"--toxiproxy-url=http://127.0.0.1:{port}")
    outcomes = {case.name: case.outcome for case in run.cases}
    assert outcomes and set(outcomes.values()) == {"unsupported"}, outcomes
    assert "no Toxiproxy server" in run.output and "are reported unsupported" in run.output
