"""`python -m amqp_conformance.reports prepare`: this machine's class archive for the
Spark driver (pipeline.settings.class_archive), made once, by hand: about 90 s for about
4 s less in each later build's start, so ci/setup leaves it to machines that build often.

A JVM launched to write the archive loads what a build loads: it builds a few synthetic
runs (a second build, landing one run more, added 22 s here and nothing to the archive:
191 MB either way). When it exits it writes every class it
loaded into the archive; the archive is written under a name of its own and renamed into
place only once the JVM has exited, so a build never meets half an archive. Without the
archive every build still runs, only slower to start.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from . import build, synthetic

JVM_EXIT_BOUND_S = 180.0  # the JVM writes the archive as it exits: about 20 s here, 190 MB
WARM_RUNS = 4  # synthetic runs the archive's build lands


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m amqp_conformance.reports prepare",
                                     description="Make the Spark driver's class archive (in the suite's cache), so "
                                                 "a report build's JVM starts in about half the time.")
    parser.add_argument("--force", action="store_true", help="make it again, even if there is one")
    args = parser.parse_args(argv)
    from .pipeline import settings  # pyspark: only for this command
    target = settings.class_archive()
    if target.is_file() and not args.force:
        print(f"[reports] class archive: {target} (made before)")
        return 0
    target.parent.mkdir(parents=True, exist_ok=True)
    print("[reports] making the Spark driver's class archive (once; about a minute)", flush=True)
    staging = target.with_name(f".{target.name}.{os.getpid()}")
    work = Path(tempfile.mkdtemp(prefix="reports-prepare-"))
    try:
        runs = work / "runs"
        synthetic.generate(runs, runs=WARM_RUNS, events=200, versions=2)
        session = settings.spark_session(dump_classes_to=staging)
        try:
            build.build([runs], work / "site", allure=False, spark=session)
        finally:
            settings.stop_session(session)
        if not settings.end_jvm(JVM_EXIT_BOUND_S):
            print(f"[reports] class archive not made: the JVM did not exit within {JVM_EXIT_BOUND_S:.0f} s",
                  file=sys.stderr)
            return 1
        if not staging.is_file():
            print("[reports] class archive not made: the JVM wrote none (were its Java options set by "
                  "spark-defaults.conf or spark-submit?); builds run without it", file=sys.stderr)
            return 1
        os.replace(staging, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        staging.unlink(missing_ok=True)
    print(f"[reports] class archive: {target} ({target.stat().st_size / 1e6:.0f} MB)")
    return 0
