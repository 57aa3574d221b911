"""A run stopped in the middle leaves nothing behind (amqp_conformance.fixtures.core.lifeline, amqp_conformance.fixtures.plugin.interruption).

ci/suite runs with a mark of its own in its environment, which every process it starts
inherits (pytest, its xdist workers, wardens, broker nodes, epmd, Toxiproxy, PerfTest),
and with TMPDIR pointing at a directory of its own. Once the first case has a result,
pytest gets SIGINT, SIGTERM or SIGKILL; then no process with the mark and nothing in
that TMPDIR may remain. SIGINT and SIGTERM end the run like a finished one: it is
stored, marked "interrupted", says so in one line without a traceback and exits 130 or
143. A killed xdist worker ends its own nodes, and the run still ends and is stored.
SIGKILL, which only the wardens answer, on each kind of thing they end: an embedded node
and xdist workers, a cluster (nodes, epmd, Toxiproxy), a Docker container, PerfTest.
The docker:IMAGE cases (SIGTERM too: its own stop and logs) are skipped where no engine
answers, PerfTest's where ci/brokers perftest has not run. Eight suite runs, each
stopped at its first result: 2.5 to 3 minutes on a loaded two-core machine.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import subprocess
import time
from pathlib import Path

import pytest

from amqp_conformance.fixtures.core.lifeline import OWNER_LABEL, TEMP_PREFIX
from amqp_conformance.fixtures.vocabulary.perf import perftest_classpath
from tests.suite_runs import REPO

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]
MARK = "AMQPC_TEST_RUN_MARK"
GONE_WITHIN_S = 10.0  # after the run's end (SIGKILL: after the signal)
TEARDOWN_WITHIN_S = 45.0  # SIGINT/SIGTERM: the node's graceful stop and xdist's, bounded
DOCKER_IMAGE = "amqpc/rabbitmq:4.0"  # ci/brokers docker imports it from the 4.0 root
SELECTIONS = {  # what runs long enough to be stopped in the middle, and started quickly
    "embedded": ["-n", "2", "-k", "ack_0"],
    "cluster": ["-n", "0", "--broker", "rabbitmq-cluster", "-k", "ack_0"],  # -n 2's workers: the embedded case
    "docker": ["-n", "0", "--broker", f"docker:{DOCKER_IMAGE}", "-k", "ack_0"],
    "perf": ["-n", "0", "-m", "perf", "-k", "PERF-01 and transient"],  # PerfTest after one of our runs
    # 17 short cases: both workers still have some at the first result, and the crashed
    # worker's replacement has few left to run
    "worker": ["-n", "2", "-k", "ack_0 and not flt05"],
}


def _docker_answers(*command: str) -> bool:
    try:
        return subprocess.run(["docker", *command], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


# CI's machine has the Docker client but no engine: nothing there can have been labelled.
DOCKER_ENGINE = _docker_answers("info")


def _docker_missing() -> str | None:
    """Why a docker:IMAGE run cannot start here, or None."""
    if not DOCKER_ENGINE:
        return "no Docker engine answers here (docker info)"
    if not _docker_answers("image", "inspect", DOCKER_IMAGE):
        return f"image {DOCKER_IMAGE} is not here: ci/brokers docker"
    return None


DOCKER_MISSING = _docker_missing()
NEEDS_DOCKER = pytest.mark.skipif(DOCKER_MISSING is not None, reason=str(DOCKER_MISSING))


class MarkedRun:
    """ci/suite with a mark of its own, its runs and temp dirs under tmp_path."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        self.mark = secrets.token_hex(8)
        self.tmp = tmp_path / "tmp"
        self.runs = tmp_path / "runs"
        self.tmp.mkdir()
        env = {**{k: v for k, v in os.environ.items() if not k.startswith("AMQP_")},
               MARK: self.mark, "TMPDIR": str(self.tmp), "AMQP_RUNS_DIR": str(self.runs)}
        self.suite = subprocess.Popen([str(REPO / "ci" / "suite"), *args], cwd=REPO, env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                      start_new_session=True)  # stop() kills its groups, never ours

    def processes(self) -> dict[int, str]:
        """pid -> command of every live process that carries the mark (zombies aside)."""
        needle = f"{MARK}={self.mark}".encode()
        found = {}
        for entry in filter(str.isdigit, os.listdir("/proc")):
            try:
                if needle not in Path(f"/proc/{entry}/environ").read_bytes().split(b"\0"):
                    continue
                stat = Path(f"/proc/{entry}/stat").read_text()
                if stat.rsplit(")", 1)[1].split()[0] == "Z":
                    continue
                found[int(entry)] = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:120]
            except OSError:
                continue
        return found

    def pytest_pid(self) -> int:
        return next(pid for pid, command in self.processes().items()
                    if " -m xdist" not in command and "pytest conformance" in command)

    def worker_pids(self) -> list[int]:
        controller = self.pytest_pid()
        return [pid for pid, command in self.processes().items()
                if _parent(pid) == controller and "python" in command and "lifeline" not in command]

    def wait_for_results(self, count: int = 1, *, within: float = 150, what: str = "-result.json") -> None:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if self.suite.poll() is not None:
                pytest.fail(f"the run ended before it could be stopped:\n{self.suite.stdout.read()[-3000:]}")
            if len(list(self.runs.glob(f"*/allure-results/*{what}"))) >= count:
                return
            time.sleep(0.2)
        pytest.fail(f"no {count} case results within {within:.0f} s")

    def wait_for_process(self, word: str, within: float = 150) -> None:
        deadline = time.monotonic() + within
        while not any(word in command for command in self.processes().values()):
            if time.monotonic() > deadline or self.suite.poll() is not None:
                pytest.fail(f"no {word} process appeared")
            time.sleep(0.2)

    def end(self, within: float) -> tuple[int, str]:
        try:
            output, _ = self.suite.communicate(timeout=within)
        except subprocess.TimeoutExpired:
            self.suite.kill()
            pytest.fail(f"the run did not end within {within:.0f} s of the signal")
        return self.suite.returncode, output

    def assert_nothing_left(self, since: float, owner: int | None = None) -> None:
        """No process, temp path, nor (`owner`: the pid that started them) container."""
        deadline = since + GONE_WITHIN_S
        while (self.processes() or self.temp_paths() or self.containers(owner)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not self.processes(), f"processes of the run left after {GONE_WITHIN_S:.0f} s: {self.processes()}"
        assert not self.temp_paths(), f"temp paths of the run left: {self.temp_paths()}"
        assert not self.containers(owner), f"containers of the run left: {self.containers(owner)}"

    @staticmethod
    def containers(owner: int | None) -> list[str]:
        """Containers, running or not, that `owner` labelled as its own (amqp_conformance.fixtures.core.lifeline)."""
        if owner is None or not DOCKER_ENGINE:
            return []
        listed = subprocess.run(["docker", "ps", "--all", "--quiet", "--filter", f"label={OWNER_LABEL}={owner}"],
                                capture_output=True, text=True, timeout=30, check=True)
        return listed.stdout.split()

    def temp_paths(self) -> list[Path]:
        """The suite's temp dirs and files (pytest's own basetemp, pytest-of-<user>, is
        kept by pytest's retention policy after every run, interrupted or not)."""
        return sorted(self.tmp.glob(f"{TEMP_PREFIX}*"))

    def manifest(self) -> dict:
        (found,) = self.runs.glob("*/manifest.json")
        return json.loads(found.read_text())

    def stop(self) -> None:
        """Whatever the test did: nothing of the run outlives it."""
        if self.suite.poll() is None:
            self.suite.kill()
        for pid in self.processes():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(os.getpgid(pid), signal.SIGKILL)


def _parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


@pytest.fixture
def marked_run(tmp_path):
    runs = []

    def start(*args: str) -> MarkedRun:
        runs.append(MarkedRun(tmp_path, *args))
        return runs[-1]
    yield start
    for run in runs:
        run.stop()


# SIGINT without xdist, SIGTERM with it: both paths of amqp_conformance.fixtures.plugin.interruption; and the
# docker:IMAGE broker's own stop and log saving.
@pytest.mark.parametrize("signum, selection", [
    pytest.param(signal.SIGINT, ["-n", "0", *SELECTIONS["embedded"][2:]], id="SIGINT"),
    pytest.param(signal.SIGTERM, SELECTIONS["embedded"], id="SIGTERM"),
    pytest.param(signal.SIGTERM, SELECTIONS["docker"], id="SIGTERM-docker", marks=NEEDS_DOCKER),
])
def test_a_signal_tears_down_stores_the_run_as_interrupted_and_leaves_nothing(marked_run, signum, selection):
    run = marked_run(*selection)
    run.wait_for_results()
    pytest_pid = run.pytest_pid()
    if "--broker" in selection:
        assert run.containers(pytest_pid), "no container of the run to leave behind"
    os.kill(pytest_pid, signum)
    status, output = run.end(TEARDOWN_WITHIN_S)
    run.assert_nothing_left(time.monotonic(), owner=pytest_pid)
    name = signal.Signals(signum).name
    assert status == 128 + signum, output[-2000:]
    assert "Traceback" not in output and "Warning" not in output, output[-3000:]
    said = [line for line in output.splitlines() if "interrupted" in line]
    assert len(said) == 1 and name in said[0], output[-2000:]
    manifest = run.manifest()
    assert manifest["interrupted"] == name and manifest["exit_status"] == 128 + signum


@pytest.mark.parametrize("broker", ["embedded", "cluster", pytest.param("docker", marks=NEEDS_DOCKER)])
def test_sigkill_of_pytest_leaves_nothing(marked_run, broker):
    run = marked_run(*SELECTIONS[broker])
    run.wait_for_results()
    before, pytest_pid = run.processes(), run.pytest_pid()
    if broker == "docker":
        assert run.containers(pytest_pid), "no container of the run to leave behind"
    else:
        assert any("beam.smp" in command for command in before.values()), before
    if broker == "cluster":
        assert any("epmd" in command for command in before.values()) and \
            any("toxiproxy" in command for command in before.values()), before
    os.kill(pytest_pid, signal.SIGKILL)
    killed = time.monotonic()
    run.assert_nothing_left(killed, owner=pytest_pid)
    run.end(GONE_WITHIN_S)


# SIGKILL only: what only the warden can end. SIGTERM's teardown is the embedded case's.
@pytest.mark.skipif(perftest_classpath() is None, reason="PerfTest is not built here: ci/brokers perftest")
def test_sigkill_while_perftest_runs_leaves_nothing(marked_run):
    run = marked_run(*SELECTIONS["perf"])
    run.wait_for_process("java")
    os.kill(run.pytest_pid(), signal.SIGKILL)
    run.assert_nothing_left(time.monotonic())
    run.end(GONE_WITHIN_S)


def test_a_killed_xdist_worker_leaves_a_run_that_ends_and_is_stored(marked_run):
    run = marked_run(*SELECTIONS["worker"])
    run.wait_for_results()
    os.kill(run.worker_pids()[0], signal.SIGKILL)
    status, output = run.end(180)
    run.assert_nothing_left(time.monotonic())
    assert status == 1, output[-3000:]  # the crashed case has no verdict: never a baseline match
    assert "worker" in output and "crashed" in output, output[-3000:]
    assert run.manifest()["interrupted"] is None
