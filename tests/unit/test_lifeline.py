"""amqp_conformance.fixtures.core.lifeline: what a process starts ends with it, however it ends; amqp_conformance.fixtures.brokers.leftovers
names what a dead starter left."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from amqp_conformance.fixtures.brokers import leftovers
from amqp_conformance.fixtures.core import lifeline

REPO = Path(__file__).resolve().parents[2]


def starter(tmp_path: Path, then: str) -> subprocess.Popen:
    """A Python process that starts a sleeping group and a temp dir through the lifeline,
    prints their pid and path, then does `then`."""
    code = textwrap.dedent(f"""
        import os, signal, sys, time
        from amqp_conformance.fixtures.core import lifeline
        group = lifeline.start_group(["sleep", "300"])
        path = lifeline.temp_dir("unit-")
        print(group.pid, path, flush=True)
        {then}
    """)
    return subprocess.Popen([sys.executable, "-c", code], cwd=REPO, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "TMPDIR": str(tmp_path)})


def gone_within(pid: int, path: Path, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not lifeline.group_alive(pid) and not path.exists():
            return True
        time.sleep(0.05)
    return False


def test_a_killed_starter_takes_its_group_and_temp_dir_with_it(tmp_path):
    process = starter(tmp_path, "time.sleep(300)")
    pid, path = process.stdout.readline().split()
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert gone_within(int(pid), Path(path), lifeline.GRACE_S + 3)


def test_what_the_starter_ended_itself_is_forgotten(tmp_path):
    ended = "lifeline.end_group(group, 5); lifeline.remove_temp(path); print('done', flush=True); time.sleep(300)"
    process = starter(tmp_path, ended)
    pid, path = process.stdout.readline().split()
    assert process.stdout.readline().strip() == "done"
    assert not lifeline.group_alive(int(pid)) and not Path(path).exists()
    process.kill()
    process.wait()


def test_leftovers_are_traced_to_a_dead_owner(tmp_path, monkeypatch):
    dead = _a_dead_pid()
    mine = tmp_path / f"amqpc-rabbitmq-{os.getpid()}-abcd1234"
    theirs = tmp_path / f"amqpc-rabbitmq-{dead}-abcd1234"
    mine.mkdir()
    theirs.mkdir()
    orphan = subprocess.Popen(["sleep", "300"], env={**os.environ, lifeline.OWNER_ENV: str(dead)},
                              start_new_session=True)
    monkeypatch.setattr(leftovers, "_temp_parents", lambda: [tmp_path])
    monkeypatch.setattr(leftovers, "_containers", lambda: [])
    try:
        found = leftovers.find()
        deadline = time.monotonic() + 5  # the orphan seen in /proc: once, in a fresh-clone ci/test, the first scan missed it
        while orphan.pid not in found.groups and time.monotonic() < deadline:
            time.sleep(0.1)
            found = leftovers.find()
        assert theirs in found.paths and mine not in found.paths
        assert orphan.pid in found.groups and "ci/suite --clean" in found.line()
        # Only ours: the machine may hold other runs' leftovers, not this test's to remove.
        leftovers.clean(leftovers.Leftovers(groups={orphan.pid: "sleep"}, paths=[theirs]))
        assert orphan.wait(timeout=10) is not None and not theirs.exists() and mine.exists()
    finally:
        orphan.kill()


def _a_dead_pid() -> int:
    """A pid no process can have: above the kernel's pid_max. (The pid of a child that just
    exited can be handed out again at once on a busy machine: pid_max is 32768 here.)"""
    return int(Path("/proc/sys/kernel/pid_max").read_text()) + 1
