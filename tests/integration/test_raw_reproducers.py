"""A framing case judged by the invariants after its bad input (garagemq's process dies on
FR-18's unknown class) gets a raw reproducer: its bytes, sent again by a script that needs
Python alone, then the bystander and a fresh connection checked. It exits 1 against a fresh
garagemq node and 0 against RabbitMQ, which keeps serving. A handshake fuzz example (F14,
F15) gets one too: its steps by name, the frames made from the URL when it runs."""

from __future__ import annotations

import subprocess
import sys
from urllib.parse import urlparse

from amqp_conformance.fixtures.brokers.registry import managed_broker
from amqp_conformance.fixtures.models.fuzz_cases import CHANNEL_OPEN, OPEN, START_OK, TUNE_OK
from amqp_conformance.fixtures.vocabulary.framing import MEMORY_BACK, MEMORY_WATCH
from amqp_conformance.fixtures.wire.raw_reproducer import Conforming, RawCase
from amqp_conformance.fixtures.wire.raw_reproducer import script as raw_script
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


def test_a_handshake_fuzz_example_has_a_script_that_makes_its_frames_from_the_url(tmp_path, plain_rabbitmq):
    """F14's finding on garagemq (start-ok twice is answered, the handshake goes on) as the
    fuzzer writes it: the steps by name, the start-ok made from the URL's credentials."""
    case = RawCase("MDL-03 F14", "a handshake method out of order or repeated ends the connection", "ch1 open-ok",
                   [], Conforming(ends=True, silent_ok=True), handshake=(START_OK, START_OK, TUNE_OK, OPEN, CHANNEL_OPEN))
    script = tmp_path / "MDL-03_F14.py"
    script.write_text(raw_script(case))
    assert plain_rabbitmq.target.password not in script.read_text()  # made from the URL given to it, when it runs

    def replay(url: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(script), url], capture_output=True, text=True, timeout=60)

    with managed_broker("garagemq") as garagemq:
        on_garagemq = replay(garagemq.url)
    assert on_garagemq.returncode == 1 and "did not end" in on_garagemq.stdout, on_garagemq.stdout
    on_rabbitmq = replay(plain_rabbitmq.target.url)
    assert on_rabbitmq.returncode == 0 and "the broker behaves" in on_rabbitmq.stdout, on_rabbitmq.stdout


def test_a_padded_start_ok_of_the_script_is_exactly_the_size_asked():
    runtime: dict = {}
    exec(raw_script(RawCase("F15", "r", "s", [], handshake=(START_OK,), start_ok_size=4096)).replace(
        'if __name__ == "__main__":', "if False:"), runtime)
    url = urlparse("amqp://someone:secret@127.0.0.1:5672/v")
    assert [len(runtime["start_ok"](url, size)) for size in (4095, 4096, 4097)] == [4095, 4096, 4097]


def test_a_finding_no_client_can_see_is_not_called_behaving(tmp_path, plain_rabbitmq):
    """garagemq's F11-headers finding is its memory (2319 MB after a 2 GB long string): a
    script cannot read it, so it sends the input and exits 3 saying what to watch."""
    script = tmp_path / "MDL-03_F11-headers_raw.py"
    script.write_text(raw_script(RawCase("MDL-03 F11", MEMORY_BACK, "2319 MB", [], Conforming(either=True),
                                         watch=MEMORY_WATCH)))
    done = subprocess.run([sys.executable, str(script), plain_rabbitmq.target.url], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 3 and "not judged here: the finding is the broker's memory" in done.stdout, done.stdout
