"""`python -m amqp_conformance.reports build [PATH ...]`: every stored run -> Parquet tables, the matrix
page and the Allure report under reports/site/. Its options are described once, by argparse
(`build --help`).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import re
import shutil
import sys
import tempfile
import time
import uuid as uuidlib
from datetime import datetime, timedelta, timezone
from pathlib import Path

from . import allure_report, cells, landing, site, storage

HERE = Path(__file__).resolve().parent
HISTORY_RUNS = 20  # older runs (over every broker version) kept as Allure history points
DEFAULT_WINDOW = "30"  # runs of each broker version behind a pass rate (build --window)


def parse_window(text: str) -> tuple[str, int]:
    """--window: "30" (the last 30 runs of each broker version) or "14d" (its last 14 days)."""
    found = re.fullmatch(r"\s*(\d+)\s*(d|days?|runs?)?\s*", str(text))
    if not found or int(found[1]) < 1:
        raise ValueError(f"--window {text!r}: a number of runs (30) or of days (14d)")
    return ("days" if (found[2] or "").startswith("d") else "runs"), int(found[1])


def window_text(window: tuple[str, int]) -> str:
    """The window as the page names it."""
    kind, size = window
    return f"the last {size} {kind if size != 1 else kind[:-1]} of each broker version"


def in_window(run_rows: list[dict], window: tuple[str, int]) -> list[dict]:
    """The runs a window holds: per broker version, its last N runs, or its runs less than
    N days older than its latest (run_rows: oldest first)."""
    kind, size = window
    by_broker: dict[str, list[dict]] = {}
    for row in run_rows:
        by_broker.setdefault(row["broker_key"], []).append(row)
    if kind == "runs":
        return [r for rows in by_broker.values() for r in rows[-size:]]
    return [r for rows in by_broker.values() for r in rows
            if r["run_started"] > rows[-1]["run_started"] - timedelta(days=size)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m amqp_conformance.reports build",
                                     description="Every stored run -> Parquet tables, the matrix page and the "
                                                 "Allure report.")
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="run folders, or folders of run folders (default: reports/runs); a local path or "
                             "any URI Spark reads (hdfs://, s3a://, file://...)")
    parser.add_argument("--out", type=Path, default=HERE / "site", metavar="DIR",
                        help="where the site goes (default: reports/site)")
    parser.add_argument("--data", default=None, metavar="URI",
                        help="where the Parquet tables are (default: OUT/data); any URI Spark writes")
    parser.add_argument("--master", default=None, metavar="URL",
                        help="Spark master (spark://..., k8s://..., yarn, local[N], or sc://... for Spark "
                             "Connect); default: the one Spark is configured with (spark-submit --master, "
                             "spark-defaults.conf), else local[*]. On a cluster, PATH and --data must be on "
                             "storage every executor sees")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                        help="a Spark setting (memory, shuffle partitions...), as spark-submit's; repeatable")
    parser.add_argument("--window", default=DEFAULT_WINDOW, metavar="N|Nd",
                        help="pass rates, flaky rules and confirm latencies over each broker version's last N "
                             f"runs, or its last N days (default: {DEFAULT_WINDOW} runs)")
    parser.add_argument("--full", action="store_true",
                        help="drop the tables and land every run again (default: land only the runs the "
                             "tables lack; a run already landed is never read again)")
    parser.add_argument("--known-broker", action="append", default=[], metavar="NAME",
                        help="accept runs of a broker product the pipeline does not know yet; repeatable")
    parser.add_argument("--allure-layout", choices=sorted(allure_report.LAYOUTS),
                        default=allure_report.DEFAULT_LAYOUT,
                        help="; ".join(f"{name}: {what}" for name, what in allure_report.LAYOUTS.items())
                        + f" (default: {allure_report.DEFAULT_LAYOUT})")
    parser.add_argument("--no-allure", action="store_true",
                        help="skip the Allure report (the matrix cells then carry no links)")
    args = parser.parse_args(argv)
    try:
        window = parse_window(args.window)
        conf = dict(pair.split("=", 1) for pair in args.conf)
    except ValueError as bad:
        parser.error(str(bad))
    summary = build(args.paths or [HERE / "runs"], args.out, args.master, set(args.known_broker),
                    allure=not args.no_allure, data=args.data, window=window, full=args.full, conf=conf,
                    allure_layout=args.allure_layout)
    for problem in summary["problems"]:
        print(f"[reports] {problem}", file=sys.stderr)
    if not summary["runs"]:
        where = ", ".join(str(p) for p in (args.paths or [HERE / "runs"]))
        print(f"[reports] no complete run found in {where}: run ci/suite first", file=sys.stderr)
        return 2
    print(f"[reports] {summary['runs']} runs ({summary['new_runs']} new, landed now; the rest landed before), "
          f"{summary['results']} results, {summary['events']} events, {summary['checks']} history checks; "
          f"{len(summary['problems'])} inputs skipped; Spark master {summary['master']}")
    print(f"[reports] pass rates, flaky rules and latencies over {summary['window']}; tables: {summary['data']}")
    print(f"[reports] matrix: {summary['matrix_page']} (Markdown: {summary['matrix_markdown']})"
          + (f"; Allure: {summary['allure']}" if summary["allure"] else ""))
    if summary["allure"] and args.allure_layout == "files":
        print(f"[reports] open both through `python -m amqp_conformance.reports serve {args.out}` (this Allure "
              "layout does not open from disk; --allure-layout single does)")
    if summary["perf_page"]:
        print(f"[reports] {summary['figures']} PERF figures: {summary['perf_page']} and its charts")
    print("[reports] seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in summary["seconds"].items()))
    return 0 if summary["runs"] else 2


def build(paths: list, out: Path, master: str | None = None, known_brokers: set[str] | None = None,
          allure: bool = True, spark=None, data: str | None = None, window: tuple[str, int] | None = None,
          full: bool = False, conf: dict[str, str] | None = None,
          allure_layout: str = allure_report.DEFAULT_LAYOUT) -> dict:
    """paths: run folders or folders of them, local paths or URIs; data: where the tables
    are (any URI Spark writes; default <out>/data). A build lands the runs not in the
    tables yet and recomputes the summaries; full: drop the tables and land every run."""
    seconds = {}
    started = time.monotonic()
    out = out.resolve()
    window = window or parse_window(DEFAULT_WINDOW)
    data = storage.to_uri(data or out / "data")
    summary = {"runs": 0, "new_runs": 0, "results": 0, "events": 0, "checks": 0, "figures": 0, "problems": [],
               "matrix_page": None, "matrix_markdown": None, "perf_page": None, "allure": None, "seconds": seconds,
               "data": landing.shown(data), "window": window_text(window), "master": None}
    local = all(storage.is_local(storage.to_uri(p)) for p in paths) and storage.is_local(data)
    if local and not full:  # nothing to do needs no Spark: no run folder, and no tables yet
        store = storage.Store()
        if not landing.discover(paths, store) and not store.exists(storage.join(data, "runs")):
            summary["problems"] = landing.plan([]).problems
            return summary

    from . import pipeline  # pyspark is imported only when there is something to do
    mark = time.monotonic()
    own_session = spark is None
    spark = spark or pipeline.spark_session(master, conf=conf)
    summary["master"] = spark.conf.get("spark.master", None) or master
    seconds["spark start"] = time.monotonic() - mark
    try:
        mark = time.monotonic()
        store = storage.Store(spark)
        tables = pipeline.Tables(spark, data, store)
        if full:
            store.remove(data)
        known = tables.read("runs")
        stored = [r.asDict(recursive=True) for r in known.collect()] if known is not None else []
        plan = landing.plan(landing.discover(paths, store), {r["run_id"]: r["run_dir"] for r in stored},
                            known_brokers, store)
        problems = list(plan.problems)
        seconds["landing"] = time.monotonic() - mark
        mark = time.monotonic()
        if plan.new:
            landed, skipped = pipeline.land(spark, tables, plan.new)
            stored += landed
            problems += skipped
        seconds["parquet"] = time.monotonic() - mark
        summary.update(runs=len(stored), new_runs=len(plan.new), problems=problems,
                       **{n: sum(r[n] or 0 for r in stored) for n in pipeline.COUNTS})
        if not stored:
            return summary
        mark = time.monotonic()
        for row in stored:  # Spark hands a timestamp back in local time, a landed row has it in UTC
            row["run_started"] = row["run_started"].astimezone(timezone.utc)
        run_rows = sorted(stored, key=lambda r: (r["run_started"], r["run_id"]))
        made = pipeline.summaries(spark, tables, in_window(run_rows, window))
        matrix, flaky, pass_rates, safety, latency, perf = (
            _rows(made[name]) if made[name] is not None else []
            for name in ("matrix", "flaky", "pass_rates", "safety", "latency", "perf"))
        allure_dirs = {r["run_id"]: Path(r["allure_results"]) for r in run_rows if r.get("allure_results")}
        deciding = allure_report.deciding_runs(matrix)
        history = _history_lines(tables, run_rows, allure_report.history_runs(run_rows, deciding, HISTORY_RUNS)) \
            if allure else []
        seconds["analyses"] = time.monotonic() - mark
    finally:
        if own_session:
            pipeline.stop_session(spark)

    for name, rows in (("matrix", matrix), ("flaky", flaky), ("safety", safety), ("latency", latency)):
        _write_csv(out / f"{name}.csv", rows)
    catalogue = cells.catalogue()  # every catalogued rule, read once for matrix.md and the page
    (out / "matrix.md").write_text(site.markdown(matrix, catalogue))
    _write_csv(out / "perf.csv", perf)
    summary["perf_page"] = site.write_perf(out, perf)
    report_link, in_report = None, set()
    if allure:
        mark = time.monotonic()
        staged = Path(tempfile.mkdtemp(prefix="allure-results-"))  # never part of the site
        in_report = allure_report.stage_results(allure_dirs, deciding, staged)
        keys = {row["broker_key"]: (row["broker"], row["broker_version"]) for row in run_rows
                if row["run_id"] in deciding}
        try:
            index = allure_report.generate(staged, out / "allure", keys, history, layout=allure_layout)
        finally:
            shutil.rmtree(staged, ignore_errors=True)
        summary["allure"] = str(index)
        report_link = "allure/index.html"
        seconds["allure"] = time.monotonic() - mark
    page = out / "index.html"
    page.write_text(site.render(matrix, flaky, safety, latency, run_rows, report_link, problems,
                                 in_report=in_report, perf=perf, pass_rates=pass_rates,
                                 window=summary["window"], catalogue=catalogue,
                                 report_served=allure_layout == "files"))
    summary["matrix_page"] = str(page)
    summary["matrix_markdown"] = str(out / "matrix.md")
    summary.update(matrix=matrix, flaky=flaky, safety=safety, latency=latency, perf=perf,
                   pass_rates=pass_rates)
    shutil.rmtree(out / "work", ignore_errors=True)  # the staging copy older builds left in the site
    seconds["total"] = time.monotonic() - started
    return summary


def _rows(frame) -> list[dict]:
    return [row.asDict(recursive=True) for row in frame.collect()]


def _history_lines(tables, run_rows: list[dict], older: set[str]) -> list[dict]:
    """Allure 3 history points (one per older run), so trend and history widgets work;
    read from the results table's partitions of those runs only."""
    results = tables.of_runs("results", [r for r in run_rows if r["run_id"] in older]) if older else None
    if results is None:
        return []
    rows = _rows(results
                 .select("run_id", "report_id", "name", "full_name", "status", "message", "start_ms", "stop_ms",
                         "history_id", "broker_key", "run_started"))
    lines: dict[str, dict] = {}
    for r in rows:
        if not r["history_id"]:
            continue  # a case the Allure sink did not write (a run without --alluredir)
        line = lines.setdefault(r["run_id"], {
            "uuid": str(uuidlib.UUID(hashlib.md5(r["run_id"].encode()).hexdigest())), "name": "AMQP 0-9-1 conformance",
            "timestamp": int(_epoch_ms(r["run_started"])), "knownTestCaseIds": [], "testResults": {},
            "metrics": {}, "url": ""})
        case_id = r["history_id"].split(".")[0]
        if case_id not in line["knownTestCaseIds"]:
            line["knownTestCaseIds"].append(case_id)
        start, stop = r["start_ms"] or 0, r["stop_ms"] or 0
        line["testResults"][r["history_id"]] = {
            "id": r["report_id"], "name": r["name"], "fullName": r["full_name"], "environment": r["broker_key"],
            "status": r["status"] or "unknown", "message": r["message"], "start": start, "stop": stop,
            "duration": max(stop - start, 0), "labels": [], "url": "", "historyId": r["history_id"],
            "reportLinks": []}
    return sorted(lines.values(), key=lambda line: line["timestamp"])


def _epoch_ms(value) -> float:
    if isinstance(value, datetime):
        return value.timestamp() * 1000
    return 0


def _write_csv(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        if not rows:
            return
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            writer.writerow({k: json.dumps(v) if isinstance(v, (list, dict)) else v for k, v in row.items()})
