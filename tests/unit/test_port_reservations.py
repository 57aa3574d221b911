"""A port the suite hands out is not handed out again while the process that chose it
lives (amqp_conformance.fixtures.core.ports): a node binds its ports seconds after they
are chosen, and another suite process choosing meanwhile found them free (ci/test: a
node's start refused with eaddrinuse)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from amqp_conformance.fixtures.core import ports

TEN = 10
# A process that chooses `count` ports among the ten from `base`, prints them, and holds
# them until its standard input closes.
CHOOSER = """
import sys
from amqp_conformance.fixtures.core import ports
base, count = int(sys.argv[1]), int(sys.argv[2])
ports.candidate_ports = lambda: range(base, base + {ten})
print(" ".join(str(ports.free_port()) for _ in range(count)), flush=True)
sys.stdin.read()
""".format(ten=TEN)


def ten_free_ports() -> int:
    """The first of ten consecutive ports below the ephemeral range that nothing listens on."""
    for base in range(20000, 30000, TEN):
        try:
            for port in range(base, base + TEN):
                with socket.socket() as sock:
                    sock.bind(("127.0.0.1", port))
        except OSError:
            continue
        return base
    raise AssertionError("no ten consecutive free ports between 20000 and 30000")


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("AMQP_CONFORMANCE_CACHE", str(tmp_path))
    return tmp_path


def chooser(base: int, count: int) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", CHOOSER, str(base), str(count)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)


def test_two_processes_choosing_at_once_never_get_the_same_port(cache):
    base = ten_free_ports()
    first = chooser(base, TEN // 2)
    try:
        chosen_first = first.stdout.readline().split()
        second = chooser(base, TEN // 2)
        try:
            chosen_second = second.stdout.readline().split()
        finally:
            second.communicate("", timeout=30)
    finally:
        first.communicate("", timeout=30)
    # Nothing listens on any of them: without reservations each process would choose
    # among all ten, and the two would share ports (251 times in 252).
    assert len(set(chosen_first)) == len(set(chosen_second)) == TEN // 2, (chosen_first, chosen_second)
    assert not set(chosen_first) & set(chosen_second), (chosen_first, chosen_second)
    assert sorted(map(int, chosen_first + chosen_second)) == list(range(base, base + TEN))
    # each process gave its reservations up when it exited
    assert not list((cache / ports.RESERVATIONS).iterdir())


def test_the_next_process_that_reserves_sweeps_what_killed_ones_left(cache):
    base = ten_free_ports()
    folder = cache / ports.RESERVATIONS
    folder.mkdir()
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    for port in range(base, base + 3):
        (folder / str(port)).write_text(f"{int(gone.stdout)} 12345\n")
    live = chooser(base + 3, 1)
    try:
        [chosen] = live.stdout.readline().split()
        assert sorted(p.name for p in folder.iterdir()) == [chosen]
    finally:
        live.communicate("", timeout=30)


def test_a_killed_process_s_reservation_is_taken_over_and_a_live_one_s_is_not(cache, monkeypatch):
    base = ten_free_ports()
    monkeypatch.setattr(ports, "candidate_ports", lambda: range(base, base + 1))
    folder = cache / ports.RESERVATIONS
    folder.mkdir()
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (folder / str(base)).write_text(f"{int(gone.stdout)} 12345\n")
    assert ports.free_port() == base
    assert (folder / str(base)).read_text().split()[0] == str(os.getpid())

    live = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        (folder / str(base)).write_text(f"{live.pid} {ports._started_at(live.pid)}\n")
        assert ports.free_port() not in ports.candidate_ports()  # the kernel's choice instead
        # a pid the kernel has given to another process since holds nothing
        (folder / str(base)).write_text(f"{live.pid} 1\n")
        assert ports.free_port() == base
    finally:
        live.communicate(b"", timeout=30)
