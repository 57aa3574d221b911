"""`python -m amqp_conformance.reports build [PATH ...]`: every stored run -> Parquet tables, the matrix
page and the Allure report under reports/site/.

  PATH            run folders, or folders of run folders (default: reports/runs)
  --out DIR       where the site goes (default: reports/site)
  --master URL    Spark master (default local[*]; spark://..., k8s://..., or sc://... for
                  Spark Connect). On a cluster, PATH and --out must be on storage every
                  executor sees.
  --known-broker NAME   accept runs of a broker product the pipeline does not know yet
  --no-allure     skip the Allure report (the matrix cells then carry no links)
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
import time
import uuid as uuidlib
from datetime import datetime
from pathlib import Path

from . import landing, site

HERE = Path(__file__).resolve().parent
HISTORY_RUNS = 20  # older runs per broker version kept as Allure history points


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m amqp_conformance.reports build", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--out", type=Path, default=HERE / "site")
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--known-broker", action="append", default=[])
    parser.add_argument("--no-allure", action="store_true")
    args = parser.parse_args(argv)
    summary = build(args.paths or [HERE / "runs"], args.out, args.master, set(args.known_broker),
                    allure=not args.no_allure)
    for problem in summary["problems"]:
        print(f"[reports] {problem}", file=sys.stderr)
    if not summary["runs"]:
        where = ", ".join(str(p) for p in (args.paths or [HERE / "runs"]))
        print(f"[reports] no complete run found in {where}: run ci/suite first", file=sys.stderr)
        return 2
    print(f"[reports] {summary['runs']} runs, {summary['results']} results, {summary['events']} events, "
          f"{summary['checks']} history checks; {len(summary['problems'])} inputs skipped")
    print(f"[reports] matrix: {summary['matrix_page']} (Markdown: {summary['matrix_markdown']})"
          + (f"; Allure: {summary['allure']}" if summary["allure"] else ""))
    if summary["perf_page"]:
        print(f"[reports] {summary['figures']} PERF figures: {summary['perf_page']} and its charts")
    print("[reports] seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in summary["seconds"].items()))
    return 0 if summary["runs"] else 2


def build(paths: list[Path], out: Path, master: str = "local[*]", known_brokers: set[str] | None = None,
          allure: bool = True, spark=None) -> dict:
    seconds = {}
    started = time.monotonic()
    out = out.resolve()
    work = out / "work"
    landed = landing.land(landing.discover([p.resolve() for p in paths]), work / "landing", known_brokers)
    seconds["landing"] = time.monotonic() - started
    summary = {"runs": landed.runs, "results": landed.results, "events": landed.events, "checks": landed.checks,
               "figures": landed.figures, "problems": landed.problems, "matrix_page": None, "matrix_markdown": None,
               "perf_page": None, "allure": None, "seconds": seconds}
    if not landed.runs:
        return summary

    from . import pipeline  # pyspark is imported only when there is something to do
    mark = time.monotonic()
    own_session = spark is None
    spark = spark or pipeline.spark_session(master)
    seconds["spark start"] = time.monotonic() - mark
    try:
        mark = time.monotonic()
        tables = pipeline.load(spark, work / "landing")
        shaped = pipeline.shape_results(tables["results"], tables["runs"]).cache()
        pipeline.write_tables({"runs": tables["runs"], "results": shaped, "events": tables["events"],
                               "checks": tables["checks"],
                               "perf": pipeline.perf_figures(tables["perf"], shaped)}, out / "data")
        seconds["parquet"] = time.monotonic() - mark
        mark = time.monotonic()
        data = out / "data"
        results = spark.read.parquet(str(data / "results"))
        events = spark.read.parquet(str(data / "events"))
        checks = spark.read.parquet(str(data / "checks"))
        runs = spark.read.parquet(str(data / "runs"))
        per_run = pipeline.rule_runs(results).cache()
        matrix = _rows(pipeline.matrix(per_run))
        flaky = _rows(pipeline.flaky(per_run))
        run_outcomes = _rows(pipeline.run_outcomes(results))
        safety = _rows(pipeline.safety(checks, results, events))
        latency = _rows(pipeline.confirm_latency(events, checks, results))
        perf = _rows(pipeline.perf_trends(spark.read.parquet(str(data / "perf"))))
        run_rows = _rows(runs.select("run_id", "broker", "broker_version", "started_at", "outcomes", "transport"))
        for row in run_rows:
            row["broker_key"] = f"{row['broker']} {row['broker_version']}"
        chosen, older = _latest_per_broker(run_rows)
        history = _history_lines(results, older) if allure else []
        seconds["analyses"] = time.monotonic() - mark
    finally:
        if own_session:
            spark.stop()

    for name, rows in (("matrix", matrix), ("flaky", flaky), ("safety", safety), ("latency", latency)):
        _write_csv(out / f"{name}.csv", rows)
    (out / "matrix.md").write_text(site.markdown(matrix))
    _write_csv(out / "perf.csv", perf)
    summary["perf_page"] = site.write_perf(out, perf)
    report_link = None
    if allure:
        from . import allure_report
        mark = time.monotonic()
        staged = work / "allure-results"
        allure_report.stage_results({r: landed.allure_dirs[r] for r in chosen if r in landed.allure_dirs}, staged)
        keys = {row["broker_key"]: (row["broker"], row["broker_version"]) for row in run_rows if row["run_id"] in chosen}
        index = allure_report.generate(staged, out / "allure", keys, history)
        summary["allure"] = str(index)
        report_link = "allure/index.html"
        seconds["allure"] = time.monotonic() - mark
    page = out / "index.html"
    page.write_text(site.render(matrix, flaky, safety, latency, run_rows, report_link, landed.problems,
                                 in_report=chosen, run_outcomes=run_outcomes, perf=perf))
    summary["matrix_page"] = str(page)
    summary["matrix_markdown"] = str(out / "matrix.md")
    summary.update(matrix=matrix, flaky=flaky, safety=safety, latency=latency, run_outcomes=run_outcomes, perf=perf)
    seconds["total"] = time.monotonic() - started
    return summary


def _rows(frame) -> list[dict]:
    return [row.asDict(recursive=True) for row in frame.collect()]


def _latest_per_broker(run_rows: list[dict]) -> tuple[set[str], set[str]]:
    latest: dict[str, dict] = {}
    for row in run_rows:
        if row["broker_key"] not in latest or (row["started_at"], row["run_id"]) > (
                latest[row["broker_key"]]["started_at"], latest[row["broker_key"]]["run_id"]):
            latest[row["broker_key"]] = row
    chosen = {row["run_id"] for row in latest.values()}
    by_broker: dict[str, list[dict]] = {}
    for row in run_rows:
        if row["run_id"] not in chosen:
            by_broker.setdefault(row["broker_key"], []).append(row)
    older = {r["run_id"] for rows in by_broker.values()
             for r in sorted(rows, key=lambda r: r["started_at"])[-HISTORY_RUNS:]}
    return chosen, older


def _history_lines(results, older: set[str]) -> list[dict]:
    """Allure 3 history points (one per older run), so trend and history widgets work."""
    if not older:
        return []
    from pyspark.sql import functions as F
    rows = _rows(results.where(F.col("run_id").isin(sorted(older)))
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
