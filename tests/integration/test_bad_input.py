"""Bad input gets one clear line and a non-zero exit, with nothing half-done left behind."""

import os
import subprocess
import sys

import pytest

from fixtures.managed_brokers import GarageMQ, free_port
from tests.suite_runs import REPO

pytestmark = pytest.mark.integration


def run_suite(*args, timeout=60, tmpdir=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AMQP_")}
    if tmpdir is not None:  # a private TMPDIR: what the run leaves there is its own, not another run's
        env["TMPDIR"] = str(tmpdir)
    return subprocess.run([sys.executable, "-m", "pytest", "conformance", "-p", "no:cacheprovider", *args],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)


def one_clear_line(done, *fragments):
    assert done.returncode == 4, done.stdout + done.stderr
    text = done.stdout + done.stderr
    assert "Traceback" not in text and text.count("amqp-conformance:") == 1, text
    for fragment in fragments:
        assert fragment in text, text
    return text


def test_a_malformed_url():
    one_clear_line(run_suite("--amqp-url", "http://user:pw@host/"), "malformed broker URL", "user:***@")


def test_an_unknown_broker_name():
    one_clear_line(run_suite("--broker", "nosuchmq"), "unknown broker 'nosuchmq'", "rabbitmq")


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
