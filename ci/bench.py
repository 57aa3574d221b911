"""Benchmark of the suite itself (not a test): each configuration of ci/suite arguments is
run several times, interleaved (A B C A B C ...) so that drift of the machine spreads over
all of them, and the wall time of every run is reported with its minimum, median and
maximum. A run whose outcomes differ from the baseline (exit status not 0) is counted and
shown, never dropped: a fast run with wrong verdicts is not a result.

    ci/bench --runs 3 "-n 2" "-n 8" "-n 12"
    ci/bench --runs 3 "--broker rabbitmq -n 8" "--broker rabbitmq-tls -n 8"
    ci/bench --runs 3 "-n 8 -m 'not fault'"

Runs are stored in a temporary run store (AMQP_RUNS_DIR) and deleted afterwards, so a
benchmark leaves reports/runs as it was, except a run that did not match its baseline: it
is moved to reports/runs/ (its frames and reproducers explain the difference). Prints a Markdown table; --json FILE keeps every run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SUMMARY = re.compile(r"^(\d+) pass, (\d+) fail, (\d+) non-strict, (\d+) info, (\d+) unsupported, (\d+) error", re.M)


@dataclass
class Run:
    config: str
    seconds: float
    status: int
    cases: int
    load_before: float
    load_after: float


def one_run(config: str, runs_dir: str) -> Run:
    load_before = os.getloadavg()[0]
    env = {**os.environ, "AMQP_RUNS_DIR": runs_dir}
    started = time.monotonic()
    done = subprocess.run(
        [str(REPO / "ci" / "suite"), "-q", *shlex.split(config)],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    seconds = time.monotonic() - started
    found = SUMMARY.findall(done.stdout)
    cases = sum(int(n) for n in found[-1]) if found else 0
    if done.returncode:
        tail = "\n".join(done.stdout.splitlines()[-15:])
        kept = [shutil.move(str(run), str(REPO / "reports" / "runs" / run.name))
                for run in Path(runs_dir).iterdir() if run.is_dir()]
        print(f"[bench] {config!r}: exit {done.returncode}, kept {' '.join(kept)}\n{tail}", file=sys.stderr)
    for run in Path(runs_dir).iterdir():
        shutil.rmtree(run, ignore_errors=True)
    return Run(config, round(seconds, 1), done.returncode, cases, load_before, os.getloadavg()[0])


def table(runs: list[Run], configs: list[str]) -> str:
    lines = [
        "| ci/suite arguments | runs | cases | min s | median s | max s | vs first | runs not matching the baseline | load avg (1 min) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    first = None
    for config in configs:
        mine = [r for r in runs if r.config == config]
        seconds = [r.seconds for r in mine]
        median = statistics.median(seconds)
        first = first or median
        loads = [r.load_before for r in mine] + [r.load_after for r in mine]
        lines.append(
            f"| `{config}` | {len(mine)} | {max(r.cases for r in mine)} | {min(seconds):.1f} | {median:.1f} "
            f"| {max(seconds):.1f} | {median / first:.2f}x | {sum(1 for r in mine if r.status)} "
            f"| {min(loads):.1f}-{max(loads):.1f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ci/bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per configuration (default 3)")
    parser.add_argument("--json", type=Path, help="write every run here")
    parser.add_argument("configs", nargs="+", help="one quoted string of ci/suite arguments per configuration")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs needs a positive number")
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="amqpc-bench-") as runs_dir:
        for k in range(1, args.runs + 1):
            for config in args.configs:
                run = one_run(config, runs_dir)
                runs.append(run)
                print(f"[bench] run {k}/{args.runs} `{config}`: {run.seconds:.1f} s, {run.cases} cases, "
                      f"exit {run.status}, load {run.load_before:.1f}", file=sys.stderr, flush=True)
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, "
          f"`ci/bench --runs {args.runs} " + " ".join(shlex.quote(c) for c in args.configs) + "`\n")
    print(table(runs, args.configs))
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in runs], indent=2) + "\n")
    return 1 if any(r.status for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
