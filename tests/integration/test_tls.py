"""Brokers behind TLS (issue #20): RabbitMQ's URI query parameters, SASL EXTERNAL, the
managed TLS node, the transport each run records, and one line and exit 4 for every
kind of bad TLS input. One managed TLS node serves the whole module."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import ssl
import subprocess
import sys
import tempfile
import threading
from dataclasses import replace

import pytest
from pamqp import frame as pamqp_frame

from amqp_conformance.fixtures.plugin.baseline_check import _baseline_name
from amqp_conformance.fixtures.vocabulary.broker import Broker, BrokerInfo
from amqp_conformance.fixtures.wire.certs import ThrowawayCA
from amqp_conformance.fixtures.brokers.garagemq import GarageMQ
from amqp_conformance.fixtures.brokers.provisioned import RabbitMQ40TLS
from amqp_conformance.fixtures.wire.target import BadTargetError, BrokerTarget, mask_url
from amqp_conformance.fixtures.wire.tls import ChainTooLong, TlsOptions, check_depth
from amqp_conformance.fixtures.plugin.session import check_admin_mechanism
from amqp_conformance.fixtures.wire.dialogue import ConnectFailed, WireConnection, _sasl_response, _StartOk
from tests.suite_runs import REPO, run_suite

# A node start plus a suite run in a subprocess outlasts the default 60 s on a loaded machine.
pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def tls_node():
    broker = RabbitMQ40TLS()  # the default version's TLS node (rabbitmq-tls)
    try:
        broker.start()
        yield broker
    finally:
        broker.cleanup()


def with_tls(target: BrokerTarget, **changes) -> BrokerTarget:
    return replace(target, tls_options=replace(target.tls_options, **changes))


@contextlib.contextmanager
def tls_front(cert, key, upstream: BrokerTarget | None = None):
    """A TLS port on the loopback presenting `cert` (and the intermediate CAs its file
    carries): for certificates a broker would refuse to start with (an expired one) and
    chains the managed node does not have. With `upstream` it relays each connection
    there over the upstream's own TLS, so the suite finds a broker behind it."""
    served = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    served.load_cert_chain(cert, key)
    loop = asyncio.new_event_loop()
    loop.set_exception_handler(lambda *_: None)  # failed handshakes are what these tests make

    async def pump(reader, writer):
        try:
            with contextlib.suppress(OSError, ssl.SSLError):
                while data := await reader.read(65536):
                    writer.write(data)
                    await writer.drain()
        finally:  # also when stop() cancels it
            writer.close()

    async def relay(reader, writer):
        if upstream is None:
            return await pump(reader, writer)  # echo until the client gives up
        try:
            far = await asyncio.open_connection(upstream.host, upstream.port, ssl=upstream.ssl_context,
                                                server_hostname=upstream.server_name)
        except (OSError, ssl.SSLError):
            return writer.close()
        await asyncio.gather(pump(reader, far[1]), pump(far[0], writer))

    async def stop():
        server.close()
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    server = loop.run_until_complete(asyncio.start_server(relay, "127.0.0.1", 0, ssl=served))
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        asyncio.run_coroutine_threadsafe(stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


# -- 1. the URI query parameters -----------------------------------------------------------
def test_tls_parameters_parse_and_round_trip(tmp_path):
    ca = ThrowawayCA(tmp_path)
    client = ca.issue("client", "conformance", server=False, passphrase="pass-phrase-1")
    url = (f"amqps://u:pw@broker.example:5671/vh?cacertfile={ca.cert}&certfile={client.cert}"
           f"&keyfile={client.key}&password=pass-phrase-1&verify=verify_peer&server_name_indication=mq.example"
           "&depth=2&heartbeat=5&connection_timeout=7000&channel_max=64&frame_max=8192&auth_mechanism=external")
    t = BrokerTarget.from_url(url)
    assert t.tls_options == TlsOptions(str(ca.cert), str(client.cert), str(client.key), "pass-phrase-1",
                                       True, "mq.example", 2)
    assert (t.heartbeat, t.connection_timeout_ms, t.channel_max, t.frame_max) == (5, 7000, 64, 8192)
    assert t.auth_mechanisms == ("EXTERNAL",) and t.server_name == "mq.example"
    assert BrokerTarget.from_url(t.url) == t  # what a child process gets back
    assert BrokerTarget.from_dict(json.loads(json.dumps(t.as_dict()))) == t  # what an xdist worker gets
    for shown in (t.safe_url, repr(t), mask_url(url)):
        assert "pass-phrase-1" not in shown and ":pw@" not in shown
    assert "pass-phrase-1" not in t.library_url and t.library_url.endswith("?auth=external")


def test_the_proxy_route_still_checks_the_brokers_own_name():
    t = BrokerTarget.from_url("amqps://u:p@mq.example/").with_address("127.0.0.1", 9999)
    assert (t.host, t.port, t.server_name) == ("127.0.0.1", 9999, "mq.example")


@pytest.mark.parametrize("query, says", [
    ("cacertfile=/etc/hostname", "TLS parameter: it needs amqps://"),
    ("verify=verify_none", "TLS parameter: it needs amqps://"),
    ("auth_mechanism=external", "it needs amqps:// with certfile="),
    ("heartbeat=-1", "heartbeat=-1: must be a whole number"),
    ("frame_max=100", "frame_max=100: must be a whole number of at least 4096"),
    ("auth_mechanism=scram-sha-256", "this suite speaks plain, amqplain, external"),
    ("ssl=true", "unknown parameter ssl="),
])
def test_bad_parameters_on_amqp_are_refused(query, says):
    with pytest.raises(BadTargetError, match=says.replace("(", r"\(").replace("=", "=")):
        BrokerTarget.from_url(f"amqp://u:p@h/?{query}")


@pytest.mark.parametrize("query, says", [
    ("cacertfile=/nonexistent/ca.pem", "cacertfile=/nonexistent/ca.pem: no such file"),
    ("verify=maybe", "must be verify_peer or verify_none"),
    ("keyfile=/etc/hostname", "keyfile= without certfile="),
    ("depth=x", "depth=x: must be a whole number"),
    ("fail_if_no_peer_cert=true", "unknown parameter fail_if_no_peer_cert="),
])
def test_bad_parameters_on_amqps_are_refused(query, says):
    with pytest.raises(BadTargetError, match=says):
        BrokerTarget.from_url(f"amqps://u:p@h/?{query}")


def test_a_wrong_key_passphrase_is_one_line_without_the_passphrase(tmp_path):
    ca = ThrowawayCA(tmp_path)
    client = ca.issue("client", "c", server=False, passphrase="right-one")
    with pytest.raises(BadTargetError) as refused:
        BrokerTarget.from_url(f"amqps://u:p@h/?certfile={client.cert}&keyfile={client.key}&password=wrong-one-77")
    assert "passphrase" in str(refused.value) and "wrong-one-77" not in str(refused.value)


@pytest.mark.parametrize("broker, baseline", [("rabbitmq-tls", "rabbitmq-4.0"), ("rabbitmq-4.0-tls", "rabbitmq-4.0"),
                                              ("rabbitmq-3.10-tls", "rabbitmq-3.10")])
def test_a_tls_node_compares_with_its_version_s_baseline(broker, baseline):
    class Options:
        def getoption(self, name):
            return {"broker": broker, "no_baseline": False, "baseline": None, "amqp_url": None}[name]
    assert _baseline_name(Options()) == baseline


# -- 2-4. the managed TLS node: catalogue cases, EXTERNAL, the recorded transport ----------
def test_amqps_url_with_ca_and_client_certificate_runs_ack04_and_flt01(tls_node, tmp_path):
    run = run_suite(tmp_path, "--amqp-url", tls_node.target.url, "-k", "ACK-04 or FLT-01",
                    "-p", "no:randomly", f"--run-dir={tmp_path / 'run'}")
    assert run.returncode == 0, run.output[-3000:]
    rules = {c.properties.get("rule") for c in run.cases}
    assert rules == {"ACK-04", "FLT-01"} and all(c.outcome == "pass" for c in run.cases), run.output[-3000:]
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    transport = manifest["transport"]
    assert transport["kind"] == "tls" and transport["tls_version"].startswith("TLSv1.")
    assert transport["cipher"] and transport["peer_verified"] is True and transport["auth_mechanism"] == "PLAIN"
    environment = run.files["environment.properties"]
    assert "transport.kind=tls" in environment and "transport.peer_verified=True" in environment
    assert "transport: tls TLSv1." in run.output


def test_external_logs_in_by_certificate_and_sends_no_password(tls_node, tmp_path, monkeypatch):
    # A password the broker would refuse: EXTERNAL must not send it, and must not need it.
    target = replace(tls_node.target, password="never-sent-9f3", auth_mechanisms=("EXTERNAL",))
    sent: list[bytes] = []
    send_raw = WireConnection._send_raw
    monkeypatch.setattr(WireConnection, "_send_raw",
                        lambda self, frame, channel: (sent.append(repr(frame).encode() + bytes(
                            getattr(frame, "response", "") or "", "utf-8")), send_raw(self, frame, channel))[1])

    async def dialogue():
        connection = await WireConnection.open(target)
        try:
            assert connection.mechanism == "EXTERNAL" and connection.transport.auth_mechanism == "EXTERNAL"
            await connection.channel()  # the login worked: a channel opens
        finally:
            await connection.close()
        broker = Broker(target, BrokerInfo("RabbitMQ", "", {}, "test", None), "external", "ext")
        try:
            await broker._admin_channel()  # aio-pika logs in by certificate too
        finally:
            await broker.cleanup()

    asyncio.run(dialogue())
    assert sent and not any(b"never-sent-9f3" in frame for frame in sent)
    monkeypatch.undo()
    run = run_suite(tmp_path, "--amqp-url", target.url, "-k", "ACK-04", "-p", "no:randomly", "-n", "0",
                    f"--run-dir={tmp_path / 'run'}")
    assert run.returncode == 0, run.output[-3000:]
    assert json.loads((tmp_path / "run" / "manifest.json").read_text())["transport"]["auth_mechanism"] == "EXTERNAL"
    stored = run.output + "".join(run.files.values()) + (tmp_path / "run" / "manifest.json").read_text()
    assert "never-sent-9f3" not in stored


def test_an_encrypted_client_key_works_and_its_passphrase_is_never_stored(tls_node, tmp_path):
    client = tls_node.ca.issue("locked-client", "conformance", server=False, passphrase="key-pass-4711")
    target = with_tls(tls_node.target, certfile=str(client.cert), keyfile=str(client.key), key_password="key-pass-4711")
    run = run_suite(tmp_path, "--amqp-url", target.url, "-k", "ACK-04", "-p", "no:randomly", "-n", "0",
                    f"--run-dir={tmp_path / 'run'}")
    assert run.returncode == 0, run.output[-3000:]
    stored = run.output + "".join(run.files.values()) + (tmp_path / "run" / "manifest.json").read_text()
    assert "key-pass-4711" not in stored and tls_node.target.password not in stored


# -- 5. bad input: one line, exit 4, nothing left running ---------------------------------
def bad_run(url: str, *fragments: str) -> str:
    """The suite on `url` with a private TMPDIR: whatever it made there (a broker, a
    Toxiproxy, a temp file) must be gone when it exits, and it must exit."""
    with tempfile.TemporaryDirectory(prefix="amqpc-tls-test-") as private:
        env = {k: v for k, v in os.environ.items() if not k.startswith("AMQP_")} | {"TMPDIR": private}
        done = subprocess.run([sys.executable, "-m", "pytest", "conformance", "-p", "no:cacheprovider",
                               "--amqp-url", url], cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
        text = done.stdout + done.stderr
        assert done.returncode == 4, text
        assert "Traceback" not in text and len(text.strip().splitlines()) == 1, text
        assert text.startswith("ERROR: amqp-conformance: "), text
        for fragment in fragments:
            assert fragment in text, text
        assert os.listdir(private) == [], os.listdir(private)
    return text


def test_the_wrong_ca(tls_node, tmp_path):
    other = ThrowawayCA(tmp_path, "some other CA")
    bad_run(with_tls(tls_node.target, cacertfile=str(other.cert)).url,
            "certificate verify failed", "is cacertfile= the CA that signed")


def test_an_expired_server_certificate(tls_node):
    expired = tls_node.ca.issue("expired-server", "localhost", server=True, expired=True)
    with tls_front(expired.cert, expired.key) as port:
        bad_run(tls_node.target.with_address("127.0.0.1", port).url, "certificate has expired")


def test_a_host_name_the_certificate_does_not_carry(tls_node):
    bad_run(with_tls(tls_node.target, server_name="not-this-broker.example").url,
            "certificate verify failed", "does not name this host")


def test_a_client_key_that_does_not_match_its_certificate(tls_node):
    stranger = tls_node.ca.issue("stranger", "stranger", server=False)
    bad_run(with_tls(tls_node.target, keyfile=str(stranger.key)).url, "the key does not match the certificate")


def test_amqps_to_a_plain_port():
    with GarageMQ() as plain:
        bad_run(f"amqps://{plain.username}:{plain.password}@127.0.0.1:{plain.port}/",
                "TLS handshake", "does not speak TLS")


def test_amqp_to_a_tls_port(tls_node):
    bad_run(replace(tls_node.target, tls=False, tls_options=None).url, "it is a TLS port, use amqps://")


def test_no_client_certificate_for_a_node_that_requires_one(tls_node):
    bad_run(with_tls(tls_node.target, certfile=None, keyfile=None).url, "requires a client certificate")


def test_a_bad_parameter_from_the_command_line():
    bad_run("amqp://u:secret-pw@127.0.0.1:1/?cacertfile=/etc/hostname", "TLS parameter: it needs amqps://")


def test_verify_none_and_depth_reach_the_node_and_say_what_was_checked(tls_node, tmp_path):
    other = ThrowawayCA(tmp_path, "not the node's CA")

    async def transport_of(target):
        connection = await WireConnection.open(target)
        await connection.close()
        return connection.transport

    unverified = asyncio.run(transport_of(with_tls(tls_node.target, cacertfile=str(other.cert), verify=False)))
    assert (unverified.kind, unverified.peer_verified) == ("tls", False)
    # depth=0: no intermediate CA between the node's certificate and the throwaway root
    assert asyncio.run(transport_of(with_tls(tls_node.target, depth=0))).peer_verified is True


# -- AMQPLAIN: RabbitMQ's legacy twin of PLAIN -------------------------------------------
def test_amqplain_sends_login_and_password_as_a_table_without_its_length():
    # rabbit_auth_mechanism_amqplain parses the response as table entries, no length prefix.
    target = BrokerTarget.from_url("amqp://üser:pw@h/?auth_mechanism=amqplain")
    assert target.auth_mechanisms == ("AMQPLAIN",) and target.admin_mechanism == "PLAIN"
    assert "auth=" not in target.library_url and BrokerTarget.from_url(target.url) == target
    table = b"\x05LOGINS\x00\x00\x00\x05\xc3\xbcser" + b"\x08PASSWORDS\x00\x00\x00\x02pw"
    assert _sasl_response("AMQPLAIN", target) == table
    start_ok = _StartOk(mechanism="AMQPLAIN", response=_sasl_response("AMQPLAIN", target))
    assert len(table).to_bytes(4, "big") + table + b"\x05en_US" in pamqp_frame.marshal(start_ok, 0)


def test_the_preflight_refuses_a_broker_the_admin_connection_cannot_log_in_to():
    target = BrokerTarget.from_url("amqp://u:secret-pw@h/?auth_mechanism=amqplain")
    check_admin_mechanism(target, ["PLAIN", "AMQPLAIN"])
    with pytest.raises(ConnectFailed, match="offers the SASL mechanisms AMQPLAIN, .*aio-pika.* needs PLAIN") as refused:
        check_admin_mechanism(target, ["AMQPLAIN"])
    assert "secret-pw" not in str(refused.value)


def test_amqplain_logs_in_to_the_managed_node(tls_node, tmp_path):
    target = replace(tls_node.target, auth_mechanisms=("AMQPLAIN",))

    async def dialogue(target):
        connection = await WireConnection.open(target)
        try:
            await connection.channel()  # the login worked: a channel opens
        finally:
            await connection.close()
        return connection

    connection = asyncio.run(dialogue(target))
    assert connection.mechanism == "AMQPLAIN" and "AMQPLAIN" in connection.offered_mechanisms
    # The password in the table is checked: a wrong one is refused.
    with pytest.raises(ConnectFailed, match="refused the login"):
        asyncio.run(dialogue(replace(target, password="not-the-password")))
    run = run_suite(tmp_path, "--amqp-url", target.url, "-k", "ACK-04", "-p", "no:randomly", "-n", "0",
                    f"--run-dir={tmp_path / 'run'}")
    assert run.returncode == 0, run.output[-3000:]
    assert json.loads((tmp_path / "run" / "manifest.json").read_text())["transport"]["auth_mechanism"] == "AMQPLAIN"
    stored = run.output + "".join(run.files.values()) + (tmp_path / "run" / "manifest.json").read_text()
    assert target.password not in stored


# -- depth=: intermediate CAs between the broker's certificate and the trusted root --------
@pytest.mark.parametrize("intermediates, depth, refused", [
    (0, 0, False), (1, 0, True), (1, 1, False), (2, 1, True), (2, 2, False), (2, None, False)])
def test_depth_counts_intermediate_cas_as_erlang_does(tmp_path, intermediates, depth, refused):
    # Erlang ssl's depth, which RabbitMQ's URI parameter is: 0, the trusted root signed the
    # broker's certificate itself; n, at most n intermediate CAs between them
    # (https://erlang.org/pipermail/erlang-questions/2012-April/065802.html).
    root = issuer = ThrowawayCA(tmp_path, "root")
    for n in range(intermediates):
        issuer = issuer.intermediate(f"intermediate {n + 1}")
    server = issuer.issue("server", "localhost", server=True)
    options = TlsOptions(str(root.cert), depth=depth)

    async def handshake(port):
        _, writer = await asyncio.open_connection("127.0.0.1", port, ssl=options.context(), server_hostname="localhost")
        try:
            check_depth(writer, options)
        finally:
            writer.close()
            with contextlib.suppress(OSError, ssl.SSLError):
                await writer.wait_closed()

    with tls_front(server.cert, server.key) as port:
        if refused:
            with pytest.raises(ChainTooLong, match=f"{intermediates} intermediate CA.*depth={depth}"):
                asyncio.run(handshake(port))
        else:
            asyncio.run(handshake(port))


@pytest.fixture(scope="module")
def behind_intermediate(tls_node):
    """The managed node reached through a port whose certificate an intermediate CA
    signed: root (the node's CA, the client's cacertfile) → intermediate → server."""
    intermediate = tls_node.ca.intermediate("amqp-conformance intermediate CA")
    server = intermediate.issue("server-via-intermediate", "localhost", server=True)
    with tls_front(server.cert, server.key, upstream=tls_node.target) as port:
        yield tls_node.target.with_address("127.0.0.1", port)


def test_a_depth_the_chain_fits_runs_the_suite(behind_intermediate, tmp_path):
    run = run_suite(tmp_path, "--amqp-url", with_tls(behind_intermediate, depth=1).url, "-k", "ACK-04",
                    "-p", "no:randomly", "-n", "0", f"--run-dir={tmp_path / 'run'}")
    assert run.returncode == 0, run.output[-3000:]
    assert run.cases and all(c.outcome == "pass" for c in run.cases), run.output[-3000:]
    assert json.loads((tmp_path / "run" / "manifest.json").read_text())["transport"]["peer_verified"] is True


def test_a_chain_deeper_than_depth_is_one_line_and_exit_4(behind_intermediate):
    bad_run(with_tls(behind_intermediate, depth=0).url,
            "certificate chain too long: 1 intermediate CA above the broker's certificate, depth=0 allows none")


def open_admin(target: BrokerTarget) -> None:
    """The aio-pika admin connection to `target`, opened and closed."""
    broker = Broker(target, BrokerInfo("RabbitMQ", "", {}, "test", None), "admin", "a")

    async def admin():
        try:
            await broker._admin_channel()
        finally:
            await broker.cleanup()

    asyncio.run(admin())


def test_the_admin_connection_checks_depth_too(behind_intermediate):
    open_admin(with_tls(behind_intermediate, depth=1))
    with pytest.raises(ChainTooLong):
        open_admin(with_tls(behind_intermediate, depth=0))


def test_the_admin_connection_checks_the_name_server_name_indication_gives(tls_node):
    named = tls_node.ca.issue("named-server", "broker.example", server=True, names=("broker.example",))
    with tls_front(named.cert, named.key, upstream=tls_node.target) as port:
        behind = tls_node.target.with_address("127.0.0.1", port)
        open_admin(with_tls(behind, server_name="broker.example"))
        with pytest.raises(Exception, match="certificate verify failed"):
            open_admin(with_tls(behind, server_name="other.example"))


def test_the_matrix_page_heads_each_broker_with_its_latest_transport():
    from amqp_conformance.reports import site
    from amqp_conformance.reports.landing import transport_text

    tls = transport_text({"kind": "tls", "tls_version": "TLSv1.3", "cipher": "TLS_AES_256_GCM_SHA384",
                          "peer_verified": True, "auth_mechanism": "EXTERNAL"})
    assert tls == "tls TLSv1.3 TLS_AES_256_GCM_SHA384, peer verified, EXTERNAL"
    assert transport_text(None) is None and transport_text({"kind": "tcp", "auth_mechanism": "PLAIN"}) == "tcp, PLAIN"
    cell = {"broker_key": "RabbitMQ 3.10.8", "rule": "ACK-04", "latest_outcome": "pass", "pass_rate": 1.0,
            "runs": 2, "latest_run": "b", "known_deviation": False}
    runs = [{"run_id": "a", "broker_key": "RabbitMQ 3.10.8", "started_at": "2026-01-01T00:00:00", "outcomes": {},
             "transport": "tcp, PLAIN"},
            {"run_id": "b", "broker_key": "RabbitMQ 3.10.8", "started_at": "2026-01-02T00:00:00", "outcomes": {},
             "transport": tls}]
    page = site.render([cell], [], [], [], runs, None, [])
    head = page[page.index("<table id=matrix>"):page.index("</thead>")]
    assert tls in head and "tcp, PLAIN" not in head
