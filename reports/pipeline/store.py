"""The Parquet tables under the data root: each run lands in them once, by run id; the
summaries are recomputed from the small per-run tables, never from the stored runs."""

from __future__ import annotations

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from amqp_conformance.fixtures.core.outcomes import HISTORY_ATTACHMENT
from ..landing import Run, shown
from ..storage import Store, join
from .analyses import (confirmed, fault_checks, flaky, in_window, latencies, matrix, pass_rates,
                       percentiles_of, perf_trends, rule_runs, run_outcomes, safety_summary, seen_in_histories)
from .ingest import read_runs
from .local_rows import local_frame
from .schemas import COUNTS, PARTS, RUN_IDS, RUNS


# -- the tables: each run lands once, the summaries come from the per-run tables -----------
PARTITIONED = ("results", "events", "checks", "confirms")
# The latencies the summaries read, a row per confirm of every run in a few files: reading
# the window's partitions of the confirms table opened 300 folders at 1,000 stored runs
# (17 of an increment's 95 s of CPU).
LATENCIES = "latencies"
COMPACT_AT = 16  # files: a per-run table appended by more builds than this is rewritten as one file


class Tables:
    """The Parquet tables under one data root (any URI Spark writes)."""

    def __init__(self, spark: SparkSession, data: str, store: Store):
        self.spark, self.data, self.store = spark, data, store

    def uri(self, name: str) -> str:
        return join(self.data, name)

    def exists(self, name: str) -> bool:
        return self.store.exists(join(self.uri(name), "_SUCCESS"))

    def read(self, name: str) -> DataFrame | None:
        """A whole table (None before its first run lands). Only the small per-run tables
        are read whole."""
        if not self.exists(name):
            return None
        return self.spark.read.parquet(self.uri(name))

    def of_runs(self, name: str, runs: list[dict]) -> DataFrame | None:
        """A partitioned table's rows of these runs, reading only their partitions."""
        folders = sorted({join(self.uri(name), f"broker_dir={r['broker_dir']}", f"date={r['date']}") for r in runs})
        folders = [f for f in folders if self.store.exists(f)]
        if not folders:
            return None
        ids = local_frame(self.spark, [(r["run_id"],) for r in runs], RUN_IDS)
        return (self.spark.read.option("basePath", self.uri(name)).parquet(*folders)
                .withColumn("date", F.col("date").cast("string"))
                .join(F.broadcast(ids), "run_id", "left_semi"))

    def append(self, name: str, frame: DataFrame) -> None:
        if name in PARTITIONED:
            frame.write.mode("append").partitionBy(*PARTS).parquet(self.uri(name))
        else:
            frame.coalesce(1).write.mode("append").parquet(self.uri(name))

    def compact(self, name: str) -> None:
        """A per-run table gets a file per build that added runs: past COMPACT_AT files,
        rewrite it as one (the per-case tables are partitioned, a file per run and date)."""
        if len(self.store.files(self.uri(name))) <= COMPACT_AT:
            return
        whole, staged = self.uri(name), self.uri(f"{name}.compacting")
        self.spark.read.parquet(whole).coalesce(1).write.mode("overwrite").parquet(staged)
        self.store.remove(whole)
        self.store.rename(staged, whole)


def ensure_latencies(tables: Tables) -> None:
    """A data root landed before the latencies table gets it once, from the confirms
    table: before new runs land, or their rows alone would seem to be all there is."""
    confirms = tables.read("confirms") if not tables.exists(LATENCIES) else None
    if confirms is not None:
        tables.append(LATENCIES, latencies(confirms))


def land(spark: SparkSession, tables: Tables, new: list[Run]) -> tuple[list[dict], list[str]]:
    """Land the new runs: Spark reads them (read_runs) and appends their rows to every
    table, the runs table last, so a run counts as landed only once all its rows are in.
    Returns the new runs' rows (with their counts) and the input skipped."""
    ensure_latencies(tables)
    read = read_runs(spark, new)
    new = [r for r in new if r.run_id not in read.lost]
    rows = [r.row for r in new]
    results_file = {r.run_id: shown(r.results) for r in new}
    tables.append("results", read.results)
    tables.append("checks", read.checks)
    tables.append("events", read.events)
    stored = tables.of_runs("events", rows)
    problems = list(read.problems)
    counts: dict[str, dict[str, int]] = {r.run_id: dict.fromkeys(COUNTS, 0) for r in new}
    seen = None
    if stored is not None:
        corrupt = F.col("corrupt").isNotNull()
        for row in stored.groupBy("run_id").agg(
                F.sum((~corrupt).cast("long")).alias("events"),
                F.collect_list(F.when(corrupt, F.struct("result_uuid", "line"))).alias("corrupt")).collect():
            counts[row.run_id]["events"] = row.events
            problems += [f"{results_file[row.run_id]} {HISTORY_ATTACHMENT} of {bad.result_uuid}:{bad.line}: "
                         f"skipped a corrupt history line" for bad in row.corrupt]
        events = stored.where(~corrupt)
        tables.append("confirms", confirmed(events, read.checks).join(F.broadcast(read.runs), "run_id"))
        confirms = tables.of_runs("confirms", rows)  # matched once, read back: never matched again
        seen = seen_in_histories(events, confirms) if confirms is not None else None
        if confirms is not None:
            tables.append(LATENCIES, latencies(confirms))
    tables.append("fault_checks", fault_checks(read.checks, read.results, seen))
    tables.append("rule_runs", rule_runs(read.results))
    tables.append("run_outcomes", run_outcomes(read.results))
    tables.append("perf", read.figures)
    for run_id, rows_read in read.rows.items():
        counts[run_id].update(rows_read)
    landed = [{**row, **counts[row["run_id"]]} for row in rows]
    tables.append("runs", local_frame(spark, landed, RUNS))
    for name in ("runs", "rule_runs", "run_outcomes", "fault_checks", "perf", LATENCIES):
        tables.compact(name)
    spark.catalog.clearCache()
    return landed, problems


def summaries(spark: SparkSession, tables: Tables, window: list[dict]) -> dict[str, DataFrame | None]:
    """Every summary, from the per-run tables: the matrix (its pass rate over the window's
    runs), flaky rules (over the window), each version's pass rate by week (every run, from
    the outcome counts of each run), the safety findings (every run), the confirm latency
    percentiles (the window's runs, from the latencies table) and the
    PERF figures' trends (every run)."""
    per_run = tables.read("rule_runs")
    ids = local_frame(spark, [(r["run_id"],) for r in window], RUN_IDS)
    ensure_latencies(tables)  # when no run landed in this build
    checked, perf, latency = tables.read("fault_checks"), tables.read("perf"), tables.read(LATENCIES)
    return {
        "matrix": matrix(per_run, ids), "flaky": flaky(in_window(per_run, ids)),
        "pass_rates": pass_rates(tables.read("run_outcomes")),
        "safety": safety_summary(checked) if checked is not None else None,
        "latency": percentiles_of(in_window(latency, ids)) if latency is not None else None,
        "perf": perf_trends(perf) if perf is not None else None}
