"""Benchmark (not a test): the pipeline's throughput in events per second at 1x, 4x and 16x
data. python -m amqp_conformance.reports bench [--base-runs N] [--events N] [--scales 1,4,16] [--master URL]

Synthetic runs are generated per scale (scale x base runs; every run has the same shape),
then `build` runs on one shared SparkSession; a discarded warm-up build on 1x data comes
first so JIT and codegen warm-up do not count against the smallest scale. The Allure
report is left out (it shows only the latest run per broker version, so it does not grow
with the data). Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from . import synthetic
from .build import build


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m amqp_conformance.reports bench")
    parser.add_argument("--base-runs", type=int, default=8)
    parser.add_argument("--events", type=int, default=4000, help="events per fault-test history")
    parser.add_argument("--scales", default="1,4,16")
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--keep", type=Path, default=None, help="keep the generated data here")
    args = parser.parse_args(argv)
    from .pipeline import spark_session
    root = args.keep or Path(tempfile.mkdtemp(prefix="reports-bench-"))
    mark = time.monotonic()
    spark = spark_session(args.master)
    spark_start = time.monotonic() - mark
    rows = []
    try:
        scales = [int(s) for s in args.scales.split(",")]
        for scale in [scales[0], *scales]:
            data = root / f"x{scale}"
            if not data.exists():
                synthetic.generate(data, runs=args.base_runs * scale, events=args.events, seed=scale)
            mark = time.monotonic()
            summary = build([data], root / f"site-x{scale}", allure=False, spark=spark)
            wall = time.monotonic() - mark
            rows.append((scale, summary, wall))
    finally:
        spark.stop()
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    print(f"Spark session start: {spark_start:.1f} s (once, not counted below); first build is a warm-up\n")
    print("| scale | runs | results | events | landing s | Spark s | total s | events/s |")
    print("|---|---|---|---|---|---|---|---|")
    for i, (scale, s, wall) in enumerate(rows):
        if i == 0:
            continue  # warm-up
        spark_s = s["seconds"].get("parquet", 0) + s["seconds"].get("analyses", 0)
        print(f"| {scale}x | {s['runs']} | {s['results']} | {s['events']} | {s['seconds']['landing']:.1f} | "
              f"{spark_s:.1f} | {wall:.1f} | {s['events'] / wall:,.0f} |")
    return 0
