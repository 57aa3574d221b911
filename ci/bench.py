"""Benchmark of the suite itself (not a test): each configuration of ci/suite arguments is
run several times, interleaved (A B C A B C ...) so that drift of the machine spreads over
all of them, and the wall time of every run is reported with its minimum, median and
maximum. A run whose outcomes differ from the baseline (exit status not 0) is counted and
shown, never dropped: a fast run with wrong verdicts is not a result.

    ci/bench --runs 3 "-n 2" "-n 8" "-n 12"
    ci/bench --runs 3 "--broker rabbitmq -n 8" "--broker rabbitmq-tls -n 8"
    ci/bench --runs 3 "-n 8 -m 'not fault'"
    ci/bench --runs 5 --under-load 4 ""          # the default run beside 4 busy processes
    ci/bench --runs 3 --old-tree /tmp/old ""     # the default run, that tree's ci/suite beside this one's

`--old-tree DIR` runs every configuration also with the ci/suite of another checkout (an
older commit, set up with its own ci/setup), interleaved with this tree's (old A, new A, old
B, new B, ...): the two are compared on the same machine under the same load.

`--under-load N` starts N busy processes (a spinning loop each) for the whole benchmark:
they compete with the suite for the cores, as other jobs on a shared CI runner do. Each is
bounded: it ends by itself after LOAD_BOUND_S, or as soon as the benchmark is gone, and the
benchmark ends it when it is done. Each run then prints what issue 35 asks of a loaded run:
wall time, cases rerun (and why), NEW deviations, errors, harness-lag cases and the worst
harness lag any attempt saw (from the run's results.jsonl).

Runs are stored in a temporary run store (AMQP_RUNS_DIR) and deleted afterwards, so a
benchmark leaves reports/runs as it was, except a run that did not match its baseline: it
is moved to reports/runs/ (its frames and reproducers explain the difference). Prints a Markdown table; --json FILE keeps every run.

Besides the wall time, each run's CPU time: user + system of ci/suite's whole process tree
(pytest, its xdist workers, the broker nodes and Toxiproxy it started), as the kernel
accounts it to the benchmark once each process has been waited for (getrusage of the
children). On a shared machine the wall time follows the load; the CPU time much less.
"""

from __future__ import annotations

import argparse
import json
import signal
import os
import shutil
import re
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from amqp_conformance.fixtures.wire.target import mask_url  # a --amqp-url's password is never printed

REPO = Path(__file__).resolve().parent.parent
SUMMARY = re.compile(r"^(\d+) pass, (\d+) fail, (\d+) non-strict, (\d+) info, (\d+) unsupported, (\d+) error", re.M)


LOAD_BOUND_S = 3 * 3600  # a busy process ends by itself after this, whatever happens to the benchmark
# A busy process: spins until its deadline, or until its parent (the benchmark) is gone.
BUSY = """
import os, sys, time
deadline, parent = time.monotonic() + float(sys.argv[1]), int(sys.argv[2])
while time.monotonic() < deadline and os.getppid() == parent:
    end = time.monotonic() + 0.5
    while time.monotonic() < end:
        pass
"""


@dataclass
class Run:
    config: str
    seconds: float
    status: int
    cases: int
    load_before: float
    load_after: float
    rerun: int = 0
    new: int = 0
    errors: int = 0
    harness_lag: int = 0
    worst_lag_ms: float = 0.0
    reruns: list[str] | None = None  # each rerun case: its attempts and what it was reported as
    cpu_s: float = 0.0  # user + system of the run's whole process tree
    tree: str = "new"  # "old": the --old-tree checkout's ci/suite


def busy_processes(count: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", BUSY, str(LOAD_BOUND_S), str(os.getpid())])
            for _ in range(count)]


def stop(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        process.send_signal(signal.SIGTERM)
    for process in processes:
        process.wait(timeout=10)


def what_the_run_says(run_dir: Path) -> dict:
    """Reruns, new deviations, errors and the worst harness lag, from a run's results.jsonl."""
    found = {"rerun": 0, "new": 0, "errors": 0, "harness_lag": 0, "worst_lag_ms": 0.0, "reruns": []}
    results = run_dir / "results.jsonl"
    if not results.exists():
        return found
    for line in results.read_text().splitlines():
        record = json.loads(line)
        attempts = record.get("attempts") or []
        lags = [record.get("harness_lag_ms") or 0.0, *(a.get("harness_lag_ms") or 0.0 for a in attempts)]
        found["worst_lag_ms"] = max(found["worst_lag_ms"], *lags)
        found["new"] += record.get("deviation") == "new"
        found["errors"] += record["outcome"] == "error"
        found["harness_lag"] += record["outcome"] == "harness-lag"
        if attempts:
            found["rerun"] += 1
            tried = ", ".join(f"{a['outcome']} ({a.get('harness_lag_ms') or 0:.0f} ms)" for a in attempts)
            found["reruns"].append(f"{record['case']}: {tried}; reported {record['outcome']} "
                                   f"({record.get('harness_lag_ms') or 0:.0f} ms)"
                                   + (f", {record['rerun_reason']}" if record.get("rerun_reason") else ""))
    return found


def tree_cpu_s() -> float:
    """User + system CPU of every descendant waited for so far (the process tree of each
    finished ci/suite; the busy processes of --under-load are waited for only at the end)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def one_run(config: str, runs_dir: str, keep: Path | None = None, tree: Path = REPO) -> Run:
    load_before = os.getloadavg()[0]
    env = {**os.environ, "AMQP_RUNS_DIR": runs_dir}
    started, cpu_before = time.monotonic(), tree_cpu_s()
    done = subprocess.run(
        [str(tree / "ci" / "suite"), "-q", *shlex.split(config)],
        cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    seconds, cpu_s = time.monotonic() - started, tree_cpu_s() - cpu_before
    found = SUMMARY.findall(done.stdout)
    cases = sum(int(n) for n in found[-1]) if found else 0
    said = next((what_the_run_says(run) for run in Path(runs_dir).iterdir() if run.is_dir()), {})
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
    if done.returncode or keep is not None:
        kept = [shutil.move(str(run), str((keep or REPO / "reports" / "runs") / run.name))
                for run in Path(runs_dir).iterdir() if run.is_dir()]
        if done.returncode:
            tail = "\n".join(done.stdout.splitlines()[-15:])
            print(mask_url(f"[bench] {config!r}: exit {done.returncode}, kept {' '.join(kept)}\n{tail}"),
                  file=sys.stderr)
    for run in Path(runs_dir).iterdir():
        shutil.rmtree(run, ignore_errors=True)
    return Run(config, round(seconds, 1), done.returncode, cases, load_before, os.getloadavg()[0], **said,
               cpu_s=round(cpu_s, 1), tree="new" if tree == REPO else "old")


def table(runs: list[Run], configs: list[str]) -> str:
    lines = [
        "| tree | ci/suite arguments | runs | cases | min s | median s | max s | vs first | median CPU s "
        "| CPU vs first | runs not matching the baseline | load avg (1 min) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    first = first_cpu = None
    for tree in ("old", "new"):
        for config in configs:
            mine = [r for r in runs if r.config == config and r.tree == tree]
            if not mine:
                continue
            seconds = [r.seconds for r in mine]
            median, cpu = statistics.median(seconds), statistics.median(r.cpu_s for r in mine)
            first, first_cpu = first or median, first_cpu or cpu
            loads = [r.load_before for r in mine] + [r.load_after for r in mine]
            lines.append(
                f"| {tree} | `{mask_url(config)}` | {len(mine)} | {max(r.cases for r in mine)} | {min(seconds):.1f} "
                f"| {median:.1f} | {max(seconds):.1f} | {median / first:.2f}x | {cpu:.1f} "
                f"| {cpu / first_cpu if first_cpu else 0:.2f}x | {sum(1 for r in mine if r.status)} "
                f"| {min(loads):.1f}-{max(loads):.1f} |"
            )
    return "\n".join(lines)


def load_table(runs: list[Run]) -> str:
    """Per run: what a loaded run did (issue 35's measure)."""
    lines = ["| run | tree | ci/suite arguments | wall s | CPU s | cases | rerun | NEW | errors | harness-lag "
             "| worst harness lag ms | load avg (1 min) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    lines += [f"| {i} | {r.tree} | `{mask_url(r.config)}` | {r.seconds:.1f} | {r.cpu_s:.1f} | {r.cases} | {r.rerun} | {r.new} "
              f"| {r.errors} | {r.harness_lag} | {r.worst_lag_ms:.0f} | {r.load_before:.1f}-{r.load_after:.1f} |"
              for i, r in enumerate(runs, 1)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ci/bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per configuration (default 3)")
    parser.add_argument("--json", type=Path, help="write every run here")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="keep every run's folder in DIR (default: only those not matching their baseline, "
                             "in reports/runs/)")
    parser.add_argument("--under-load", type=int, default=0, metavar="N",
                        help="N busy processes compete for the cores during every run (default none)")
    parser.add_argument("--old-tree", type=Path, metavar="DIR",
                        help="another checkout (with its own .venv from its ci/setup): each configuration runs "
                             "with its ci/suite too, interleaved with this tree's")
    parser.add_argument("configs", nargs="+", help="one quoted string of ci/suite arguments per configuration")
    args = parser.parse_args(argv)
    if args.old_tree is not None and not (args.old_tree / "ci" / "suite").is_file():
        parser.error(f"--old-tree {args.old_tree}: no ci/suite there")
    trees = [args.old_tree.resolve(), REPO] if args.old_tree is not None else [REPO]
    if args.runs < 1:
        parser.error("--runs needs a positive number")
    if args.under_load < 0:
        parser.error("--under-load needs 0 or more busy processes")
    runs: list[Run] = []
    busy = busy_processes(args.under_load)
    try:
        with tempfile.TemporaryDirectory(prefix="amqpc-bench-") as runs_dir:
            for k in range(1, args.runs + 1):
                for config, tree in [(c, t) for c in args.configs for t in trees]:
                    run = one_run(config, runs_dir, args.keep, tree)
                    runs.append(run)
                    print(f"[bench] run {k}/{args.runs} {run.tree} `{mask_url(config)}`: {run.seconds:.1f} s, "
                          f"{run.cpu_s:.1f} s CPU, {run.cases} cases, "
                          f"exit {run.status}, {run.rerun} rerun, {run.new} NEW, {run.errors} error, "
                          f"{run.harness_lag} harness-lag, worst harness lag {run.worst_lag_ms:.0f} ms, "
                          f"load {run.load_before:.1f}-{run.load_after:.1f}", file=sys.stderr, flush=True)
                    for line in run.reruns or []:
                        print(f"[bench]   rerun {line}", file=sys.stderr, flush=True)
    finally:
        stop(busy)
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, "
          f"`ci/bench --runs {args.runs}" + (f" --under-load {args.under_load}" if args.under_load else "")
          + (f" --old-tree {args.old_tree}" if args.old_tree else "")
          + " " + " ".join(shlex.quote(mask_url(c)) for c in args.configs) + "`\n")
    print(table(runs, args.configs))
    if args.under_load:
        print("\n" + load_table(runs))
    if args.json:
        args.json.write_text(json.dumps([{**asdict(r), "config": mask_url(r.config)} for r in runs], indent=2) + "\n")
    return 1 if any(r.status for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
