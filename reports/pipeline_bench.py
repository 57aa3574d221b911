"""Benchmark (not a test): what a year of nightly CI costs the pipeline.

    python -m amqp_conformance.reports bench [--sizes 10,100,1000,3650] [--increment 10]
                                             [--versions 10] [--events N] [--keep DIR] [--conf KEY=VALUE]

Synthesizes stored runs (reports/synthetic.py: --versions broker versions, one run each a
night) once, then for each size N: a full build of the first N runs, then an increment
(the next --increment runs added to the same site). Each build is its own process
(`python -m amqp_conformance.reports build`), so its wall time includes Spark's start.
Prints a Markdown table: wall time of each, the CPU time and the peak memory of the
build's processes (the Python driver and its JVM, sampled from /proc every 2 s, so the CPU
misses at most a process's last 2 s), the load average over the build (from /proc/loadavg
before and after: on a shared machine the wall time follows the load, the CPU time much
less), the Parquet tables' size and the whole site's. The Allure report is left out (it
holds the latest run of each broker version, so it does not grow with the runs).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from . import synthetic


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m amqp_conformance.reports bench")
    parser.add_argument("--sizes", default="10,100,1000,3650")
    parser.add_argument("--increment", type=int, default=10)
    parser.add_argument("--versions", type=int, default=10)
    parser.add_argument("--events", type=int, default=2000, help="events per fault-test history")
    parser.add_argument("--keep", type=Path, default=None, help="keep (and reuse) the generated runs here")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="passed to each build")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    root = args.keep or Path(tempfile.mkdtemp(prefix="reports-bench-"))
    pool = root / "runs"
    try:
        mark = time.monotonic()
        have = len(list(pool.iterdir())) if pool.exists() else 0
        wanted = max(sizes) + args.increment
        if have < wanted:
            synthetic.generate(pool, runs=wanted - have, events=args.events, versions=args.versions, first=have)
        print(f"{wanted} synthetic runs in {pool} ({time.monotonic() - mark:.0f} s to make the missing ones)",
              flush=True)
        names = sorted(p.name for p in pool.iterdir())
        print("| stored runs | full build s | CPU s | peak MB | load | +%d runs s | CPU s | peak MB | load "
              "| Parquet MB | site MB |" % args.increment)
        print("|---|---|---|---|---|---|---|---|---|---|---|", flush=True)
        for size in sizes:
            view, site = root / f"view-{size}", root / f"site-{size}"
            shutil.rmtree(view, ignore_errors=True)
            shutil.rmtree(site, ignore_errors=True)
            view.mkdir()
            _link(pool, view, names[:size])
            full = _build(view, site, args.conf)
            _link(pool, view, names[size:size + args.increment])
            increment = _build(view, site, args.conf)
            print(f"| {size} | {full} | {increment} | {_mb(site / 'data'):.1f} | {_mb(site):.1f} |", flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


def _link(pool: Path, view: Path, names: list[str]) -> None:
    for name in names:
        (view / name).symlink_to(pool / name, target_is_directory=True)


def _build(runs: Path, site: Path, conf: list[str]) -> str:
    """One build in its own process: its wall time, CPU time, the peak memory (MB) of its
    process tree and the load average before and after, as table cells."""
    command = [sys.executable, "-m", "amqp_conformance.reports", "build", str(runs), "--out", str(site),
               "--no-allure", *[x for pair in conf for x in ("--conf", pair)]]
    load = _load()
    mark = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    peak, cpu = [0.0], {}
    sampler = threading.Thread(target=_sample, args=(process, peak, cpu), daemon=True)
    sampler.start()
    output = process.communicate()[0]
    wall = time.monotonic() - mark
    sampler.join(timeout=5)
    if process.returncode != 0:
        raise SystemExit(f"build failed ({process.returncode}): {' '.join(command)}\n{output[-3000:]}")
    return f"{wall:.0f} | {sum(cpu.values()):.0f} | {peak[0]:.0f} | {load}-{_load()}"


def _load() -> str:
    """The one-minute load average."""
    return open("/proc/loadavg").read().split()[0]


def _sample(process: subprocess.Popen, peak: list[float], cpu: dict[int, float]) -> None:
    while process.poll() is None:
        tree = _tree(process.pid)
        peak[0] = max(peak[0], sum(_rss_mb(pid) for pid in tree))
        for pid in tree:  # a process's CPU time only grows: its last sample is the closest
            cpu[pid] = max(cpu.get(pid, 0.0), _cpu_s(pid))
        time.sleep(2)  # a walk over /proc costs CPU too


def _tree(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parent = int(open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def _cpu_s(pid: int) -> float:
    try:
        stat = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime
    except (OSError, IndexError, ValueError):
        return 0.0


def _rss_mb(pid: int) -> float:
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6 if path.exists() else 0.0
