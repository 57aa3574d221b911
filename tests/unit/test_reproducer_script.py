"""A generated reproducer (fixtures/reproducer) runs alone against a broker and says
whether the broker's replies are the same as in the suite's run: checked here against
two small fake brokers that differ only in the reply text of one channel close, with no
real broker (tests/integration/test_reproducers.py replays real ones)."""

import secrets
import socket
import socketserver
import struct
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
from pamqp import commands, frame

from amqp_conformance.fixtures.plugin import reproducer

GARAGE_TEXT = "PRECONDITION_FAILED - Delivery tag [1] not found"
RABBIT_TEXT = "PRECONDITION_FAILED - unknown delivery tag 1"


def fake_broker(close_text: str):
    """A TCP server speaking just enough AMQP 0-9-1: an ack closes the channel with 406 and `close_text`."""
    ready = {}

    class Handler(socketserver.BaseRequestHandler):
        def handle(self):
            sock, unread, consumers = self.request, b"", set()

            def send(value, channel=0):
                sock.sendall(frame.marshal(value, channel))

            def frames():
                nonlocal unread
                while True:
                    while len(unread) >= 8 and len(unread) >= struct.unpack(">I", unread[3:7])[0] + 8:
                        size = struct.unpack(">I", unread[3:7])[0] + 8
                        data, unread = unread[:size], unread[size:]
                        yield frame.unmarshal(data)[1:]
                    chunk = sock.recv(65536)
                    if not chunk:
                        return
                    unread += chunk

            sock.recv(8)  # the protocol header
            send(commands.Connection.Start(mechanisms="PLAIN", locales="en_US"))
            for channel, value in frames():
                if isinstance(value, commands.Connection.StartOk):
                    send(commands.Connection.Tune(channel_max=16, frame_max=131072, heartbeat=0))
                elif isinstance(value, commands.Connection.Open):
                    send(commands.Connection.OpenOk())
                elif isinstance(value, commands.Channel.Open):
                    send(commands.Channel.OpenOk(), channel)
                elif isinstance(value, commands.Queue.Declare):
                    ready.setdefault(value.queue, 0)
                    send(commands.Queue.DeclareOk(value.queue, ready[value.queue], 0), channel)
                elif isinstance(value, commands.Basic.Publish):
                    ready[value.routing_key] = ready.get(value.routing_key, 0) + 1
                elif isinstance(value, commands.Queue.Delete):
                    send(commands.Queue.DeleteOk(ready.pop(value.queue, 0)), channel)
                elif isinstance(value, commands.Basic.Consume):
                    tag = value.consumer_tag or f"gen-{secrets.token_hex(4)}"  # a tag made up anew each time
                    consumers.add(tag)
                    send(commands.Basic.ConsumeOk(tag), channel)
                elif isinstance(value, commands.Basic.Cancel):
                    if value.consumer_tag in consumers:
                        send(commands.Basic.CancelOk(value.consumer_tag), channel)
                    else:
                        send(commands.Channel.Close(404, "NOT_FOUND - no such consumer", 60, 30), channel)
                elif isinstance(value, commands.Basic.Ack):
                    send(commands.Channel.Close(406, close_text, 60, 80), channel)
                elif isinstance(value, commands.Connection.Close):
                    send(commands.Connection.CloseOk())
                    return

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def brokers():
    servers = {"garagemq": fake_broker(GARAGE_TEXT), "rabbitmq": fake_broker(RABBIT_TEXT)}
    yield {name: f"amqp://guest:guest@127.0.0.1:{server.server_address[1]}/" for name, server in servers.items()}
    for server in servers.values():
        server.shutdown()
        server.server_close()


def test_a_consumer_tag_the_broker_made_up_is_this_run_s_in_the_replay(tmp_path, brokers):
    sent = [(1.0, 1, commands.Channel.Open()), (1.1, 1, commands.Basic.Consume(queue="q1")),
            (1.2, 1, commands.Basic.Cancel(consumer_tag="gen-suite"))]
    received = [(1.05, 1, commands.Channel.OpenOk()), (1.15, 1, commands.Basic.ConsumeOk("gen-suite")),
                (1.25, 1, commands.Basic.CancelOk("gen-suite"))]
    connection = SimpleNamespace(sent=[(at, ch, frame.marshal(value, ch)) for at, ch, value in sent],
                                 received=[(at, ch, frame.marshal(value, ch)) for at, ch, value in received])
    script = tmp_path / "tag.py"
    script.write_text(reproducer.script(case="CON-99", nodeid="x", rule="CON-99", title="t", expected="e", seen="s",
                                        setup=[(0.5, "declare", ("q1", {}))], connections=[connection],
                                        not_replayable=None))
    done = subprocess.run([sys.executable, str(script), brokers["garagemq"]], capture_output=True, text=True,
                          timeout=60)
    assert "Basic.CancelOk" in done.stdout and "same replies as in the suite's run: yes" in done.stdout, done.stdout


def suite_run_on_garagemq() -> str:
    """The reproducer the suite would write for an unknown-tag ack that garagemq closes with its own text."""
    sent = [(1.0, 1, commands.Channel.Open()), (1.1, 1, commands.Basic.Ack(delivery_tag=1)),
            (1.3, 1, commands.Channel.CloseOk()), (1.4, 0, commands.Connection.Close(200, "bye", 0, 0))]
    received = [(1.05, 1, commands.Channel.OpenOk()), (1.15, 1, commands.Channel.Close(406, GARAGE_TEXT, 60, 80)),
                (1.45, 0, commands.Connection.CloseOk())]
    connection = SimpleNamespace(sent=[(at, ch, frame.marshal(value, ch)) for at, ch, value in sent],
                                 received=[(at, ch, frame.marshal(value, ch)) for at, ch, value in received])
    setup = [(0.5, "declare", ("q1", {"x-queue-type": "classic"})), (0.6, "publish", ("q1", [(b"m1", "id-1")], False)),
             (1.2, "count", ("q1", 1))]
    return reproducer.script(case="ACK-03[ack]", nodeid="conformance/x.py::test_ack[ack]", rule="ACK-03",
                             title="an unknown tag closes the channel", expected="channel.close 406",
                             seen=GARAGE_TEXT, setup=setup, connections=[connection], not_replayable=None)


def test_the_script_sees_the_same_replies_on_the_same_broker_and_the_difference_elsewhere(tmp_path, brokers):
    script = tmp_path / reproducer.file_name("ACK-03[ack]")
    script.write_text(suite_run_on_garagemq())
    assert script.name == "ACK-03_ack.py"
    runs = {name: subprocess.run([sys.executable, str(script), url], capture_output=True, text=True, timeout=60)
            for name, url in brokers.items()}
    same, other = runs["garagemq"], runs["rabbitmq"]
    # 1: the deviation reproduces; 0: the broker behaves (other replies than the deviating run's)
    assert same.returncode == 1 and "same replies as in the suite's run: yes" in same.stdout, same.stdout + same.stderr
    assert "admin: q1 holds 1 ready message(s)" in same.stdout, same.stdout
    assert other.returncode == 0 and "same replies as in the suite's run: no" in other.stdout, other.stdout
    assert RABBIT_TEXT in other.stdout.split("first difference:")[1], other.stdout


def test_a_fault_case_says_it_is_not_replayable_alone(tmp_path):
    script = tmp_path / "FLT-03.py"
    script.write_text(reproducer.script(case="FLT-03[down]", nodeid="x", rule="FLT-03", title="t", expected="e",
                                        seen="s", setup=[], connections=[], not_replayable="a fault"))
    done = subprocess.run([sys.executable, str(script), "amqp://x@localhost/"], capture_output=True, text=True)
    assert done.returncode == 3 and "not replayable alone: a fault" in done.stdout, done.stdout
    shown = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True)
    assert shown.returncode == 0 and "Reproducer for FLT-03[down]" in shown.stdout, shown.stdout


def test_help_is_help_and_bad_arguments_or_an_unreachable_broker_exit_2(tmp_path):
    """--help was taken for the URL (a traceback); a broker it cannot reach exited 1, which
    meant "does not reproduce"."""
    script = tmp_path / "ACK-03_ack.py"
    script.write_text(suite_run_on_garagemq())
    run = lambda *args: subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, timeout=60)
    shown = run("--help")
    assert shown.returncode == 0 and "Reproducer for ACK-03" in shown.stdout and "exit status" in shown.stdout
    assert "Traceback" not in shown.stderr
    for bad in ([], ["a", "b"], ["http://localhost/"]):
        done = run(*bad)
        assert done.returncode == 2 and "Traceback" not in done.stderr and "usage:" in done.stderr, (bad, done.stderr)
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    done = run(f"amqp://guest:guest@127.0.0.1:{port}/")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines() == [done.stderr.strip()] and "cannot connect" in done.stderr, done.stderr


def test_the_program_is_two_modules_the_writer_copies():
    from amqp_conformance.fixtures.plugin import reproducer_comparison, reproducer_program

    for part in (reproducer_program, reproducer_comparison):
        assert reproducer.PROGRAM_START.strip() in Path(part.__file__).read_text()
    program = reproducer.program()
    assert "def main(argv=None):" in program and "def signature(" in program
    assert '"""The program every' not in program and "from .reproducer_comparison" not in program
    compile(program, "reproducer", "exec")  # one script, whole


def test_a_setup_the_broker_does_not_answer_exits_3(tmp_path):
    server = fake_broker(GARAGE_TEXT)  # it never answers exchange.declare
    try:
        script = tmp_path / "r.py"
        script.write_text(suite_run_on_garagemq().replace("'declare', ('q1', {'x-queue-type': 'classic'})",
                                                          "'fanout', ('x1', ['q1'])"))
        done = subprocess.run([sys.executable, str(script), f"amqp://g:g@127.0.0.1:{server.server_address[1]}/"],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 3 and "the broker refused the setup: declare fanout exchange x1" in done.stdout, \
            done.stdout + done.stderr
    finally:
        server.shutdown()
        server.server_close()


def test_the_script_states_the_broker_settings_it_assumes_and_when_the_timeout_decides(tmp_path):
    """QOS-10's replay holds a delivery past the managed node's 2.5 s consumer timeout: on a
    broker with another timeout its replies differ, and the script says so before replaying."""
    import runpy

    held = SimpleNamespace(sent=[(0.0, 1, frame.marshal(commands.Channel.Open(), 1)),
                                 (3.2, 1, frame.marshal(commands.Basic.Ack(delivery_tag=1), 1))], received=[])
    settings = {"broker": "RabbitMQ 4.0.5 (managed rabbitmq-4.0)", "consumer_timeout_ms": 2500,
                "consumer_timeout_check_ms": 500}
    for name, timeout_ms, says in (("held.py", 2500, True), ("short.py", 60000, False)):
        script = tmp_path / name
        script.write_text(reproducer.script(case="QOS-10", nodeid="x", rule="QOS-10", title="t", expected="e", seen="s",
                                            setup=[], connections=[held], not_replayable=None,
                                            settings={**settings, "consumer_timeout_ms": timeout_ms}))
        assert f"consumer_timeout_ms: {timeout_ms}" in script.read_text()
        lines = runpy.run_path(str(script))["assumptions"]()
        assert f"consumer_timeout_ms {timeout_ms}" in lines[0], lines
        assert any("longer than that consumer timeout (2500 ms)" in line for line in lines) is says, lines


def test_an_open_ok_for_an_open_sent_before_the_close_is_not_a_reopen():
    # CH-05 on garagemq: a second channel.close (406) arrives after the client sent its
    # close-ok and a new Channel.Open; the open-ok garagemq sends next, in some runs and
    # not in others, answers an open sent before that close: the client discards it.
    from amqp_conformance.fixtures.plugin import reproducer_comparison as program
    opened, closed_first = frame.marshal(commands.Channel.OpenOk(), 1), frame.marshal(
        commands.Channel.Close(404, "NOT_FOUND - no queue", 50, 10), 1)
    closed_again = frame.marshal(commands.Channel.Close(406, GARAGE_TEXT, 60, 80), 1)
    open_frame = frame.marshal(commands.Channel.Open(), 1)
    with_stray = [(0, 1, opened), (0, 1, closed_first), (0, 1, closed_again), (0, 1, opened)]
    without = with_stray[:3]
    # Opens: the first before any reply, the second after the first close (reply 2) arrived,
    # before the second (reply 3).
    opens = program.opens_of([(0, 0, 1, open_frame), (2, 0, 1, open_frame)])
    assert program.signature(with_stray, {}, opens=opens) == program.signature(without, {}, opens=opens)
    # The same open-ok after an open sent once the second close had arrived reopens the channel.
    reopened = program.opens_of([(0, 0, 1, open_frame), (2, 0, 1, open_frame), (3, 0, 1, open_frame)])
    assert program.signature(with_stray, {}, opens=reopened)[(0, 1)][-1].startswith("Channel.OpenOk(")
    assert program.signature(without, {}, opens=reopened) != program.signature(with_stray, {}, opens=reopened)
