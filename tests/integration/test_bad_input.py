"""Bad input gets one clear line and a non-zero exit, with nothing half-done left behind:
a bad option before any broker starts.

How fast that line comes is a benchmark figure (`ci/bench`, several runs, median; in
docs/measurements.md), never asserted here: a wall-clock bound flakes on a busy machine.
What is asserted is what makes the answer fast whatever the load: no broker started
(the private TMPDIR stays empty, the line says so), and a silent port is judged by the
URL's own bound (the line names it), with run_suite's time-out as the ceiling on a hang."""

import os
import socket
import subprocess
import sys
import threading
import time

import pytest

from amqp_conformance.fixtures.brokers.garagemq import GarageMQ
from amqp_conformance.fixtures.core.ports import free_port
from tests.suite_runs import REPO

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]  # above each run's own bound (60-120 s): a net, not a target


def run_suite(*args, timeout=60, tmpdir=None, env=None):
    environment = {k: v for k, v in os.environ.items() if not k.startswith("AMQP_")} | (env or {})
    if tmpdir is not None:  # a private TMPDIR: what the run leaves there is its own, not another run's
        environment["TMPDIR"] = str(tmpdir)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", "conformance", "-p", "no:cacheprovider", *args],
                          cwd=REPO, env=environment, capture_output=True, text=True, timeout=timeout)
    done.seconds = time.monotonic() - started
    return done


def one_clear_line(done, *fragments):
    assert done.returncode == 4, done.stdout + done.stderr
    text = done.stdout + done.stderr
    assert "Traceback" not in text and text.count("amqp-conformance:") == 1, text
    for fragment in fragments:
        assert fragment in text, text
    return text


@pytest.mark.parametrize("option, value", [
    ("--reply-timeout", "0"), ("--reply-timeout", "-1"), ("--reply-timeout", "abc"),
    ("--negative-window", "0"), ("--negative-window", "nan"),
    ("--consumer-timeout-ms", "0"), ("--consumer-timeout-ms", "1.5"), ("--consumer-timeout-check-ms", "-500"),
])
def test_a_bound_that_is_not_a_positive_number(tmp_path, option, value):
    # No --amqp-url: the default broker would start, were the option not refused first.
    private = tmp_path / "tmp"
    private.mkdir()
    one_clear_line(run_suite(option, value, tmpdir=private), option, "positive number", repr(value))
    assert os.listdir(private) == []


def test_a_bound_from_the_environment_is_checked_too():
    one_clear_line(run_suite(env={"AMQP_REPLY_TIMEOUT": "-2"}), "AMQP_REPLY_TIMEOUT", "'-2'")


def test_an_unknown_baseline_name_lists_the_known_ones():
    one_clear_line(run_suite("--baseline", "nosuchbroker"), "no baseline 'nosuchbroker'", "rabbitmq-4.0",
                   "rabbitmq-3.10", "garagemq")


@pytest.mark.parametrize("selection", [("-k", "NO-SUCH-RULE-99"), ("-m", "must and should")])
def test_a_selection_of_nothing_is_said_before_any_broker_starts(tmp_path, selection):
    private = tmp_path / "tmp"
    private.mkdir()
    text = one_clear_line(run_suite(*selection, tmpdir=private), "selects no case", "no broker was started")
    assert selection[1] in text
    assert os.listdir(private) == []


def silent_port(stop: threading.Event) -> int:
    """A port that accepts TCP connections and never says a word."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    held = []

    def accept():
        with listener:
            while not stop.is_set():
                try:
                    held.append(listener.accept()[0])
                except TimeoutError:
                    continue
            for conn in held:
                conn.close()
    threading.Thread(target=accept, daemon=True).start()
    return listener.getsockname()[1]


def test_a_silent_port_is_reported_by_the_urls_own_bound():
    stop = threading.Event()
    try:
        port = silent_port(stop)
        bound_ms = 3000
        done = run_suite("--amqp-url", f"amqp://u:secret@127.0.0.1:{port}/?connection_timeout={bound_ms}")
    finally:
        stop.set()
    one_clear_line(done, f"no AMQP handshake from 127.0.0.1:{port} within 3.0 s")
    assert "secret" not in done.stdout + done.stderr


@pytest.mark.timeout(420)
def test_a_cluster_broker_with_workers_runs_in_one_process_and_says_so():
    done = run_suite("--broker", "rabbitmq-cluster", "-n", "2", "-k", "CLU-01", "--no-baseline", timeout=400)
    text = done.stdout + done.stderr
    assert done.returncode == 0, text[-3000:]
    assert "workers: none, one process (-n 2 given)" in text and "(managed rabbitmq-4.0-cluster)" in text, text[-3000:]
    assert " 0 unsupported" in text and "1 passed" in text, text[-3000:]


def test_a_malformed_url():
    one_clear_line(run_suite("--amqp-url", "http://user:pw@host/"), "malformed broker URL", "user:***@")


def test_an_unknown_broker_name():
    text = one_clear_line(run_suite("--broker", "nosuchmq"), "unknown broker 'nosuchmq'", "rabbitmq")
    # every form --broker takes, and the way to a broker of one's own named once
    assert "docker:IMAGE" in text and "or all (ci/suite" in text and text.count("--amqp-url") == 1, text


@pytest.mark.parametrize("command", [["ci/suite"], [sys.executable, "-m", "amqp_conformance.fixtures.commands.cli"]],
                         ids=["ci-suite", "amqp-conformance"])
def test_a_run_folder_that_cannot_be_made_is_one_line_from_either_command(command):
    # /proc refuses any new folder, even to root: no traceback of a plugin tripping over it.
    done = subprocess.run([*command, "--run-dir", "/proc/forbidden", "-k", "ACK-04"], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    one_clear_line(done, "--run-dir /proc/forbidden cannot be made")


def test_repeat_zero_reads_the_same_from_either_command():
    lines = set()
    for command in (["ci/suite"], [sys.executable, "-m", "amqp_conformance.fixtures.commands.cli"]):
        done = subprocess.run([*command, "--repeat", "0"], cwd=REPO, capture_output=True, text=True, timeout=60)
        lines.add(one_clear_line(done, "--repeat needs a positive number").strip().splitlines()[-1])
    assert lines == {"ERROR: amqp-conformance: --repeat needs a positive number of runs, got '0'"}, lines


def test_an_unreachable_broker_is_one_error_not_one_per_test():
    port = free_port()
    one_clear_line(run_suite("--amqp-url", f"amqp://u:secret@127.0.0.1:{port}/"),
                   f"cannot connect to 127.0.0.1:{port}")


def test_a_malformed_url_in_a_list_of_node_urls():
    one_clear_line(run_suite("--amqp-url", "amqp://u:pw@127.0.0.1:1/", "--amqp-url", "amqp://u:pw@127.0.0.1:2/,http://x/"),
                   "malformed broker URL", "amqp:// or amqps://")


def test_an_unreachable_node_in_a_list_of_urls_is_named():
    port = free_port()
    with GarageMQ() as target:
        one_clear_line(run_suite("--amqp-url", f"{target.url},amqp://u:secret@127.0.0.1:{port}/"),
                       f"cannot connect to 127.0.0.1:{port}", "(node 2 of 2 in --amqp-url)")


def test_a_wrong_password_is_named_and_never_printed():
    with GarageMQ() as target:
        text = one_clear_line(
            run_suite("--amqp-url", f"amqp://{target.username}:wrong-pw-123@127.0.0.1:{target.port}/"),
            "refused the login")
    assert "wrong-pw-123" not in text


def test_a_failed_start_leaves_no_broker_running(tmp_path):
    private = tmp_path / "tmp"
    private.mkdir()
    run_suite("--broker", "nosuchmq", tmpdir=private)
    assert os.listdir(private) == []
