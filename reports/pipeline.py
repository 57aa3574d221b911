"""The Spark side: explicit schemas, the Parquet tables and the analyses.

Tables (Parquet under <site>/data/): runs, results, events, checks, perf.
Analyses: the conformance matrix (broker x rule: latest outcome, pass rate over runs),
flaky rules (mixed outcomes for one broker and rule), safety findings (from the fault
tests' history checks, by broker and fault), confirm latency percentiles by fault
(from the message histories), the PERF figures with their trend across runs and the
ratio of the suite's instruments to PerfTest, and the Allure history points of older runs.
Every case comes from its record (results.jsonl, amqp_conformance.fixtures.core.outcomes.CaseResult): rule,
outcome, deviation and the key Allure gave it are fields, never read back out of Allure.
Only the DataFrame API is used, so the same code runs on local[*], a cluster master
or Spark Connect.
"""

from __future__ import annotations

import os
from dataclasses import fields
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from amqp_conformance.fixtures.core.outcomes import ALLURE_STATUS, PASSING, CaseResult

from . import cells

# -- session ------------------------------------------------------------------------------
def spark_session(master: str = "local[*]", app: str = "amqp-conformance-reports") -> SparkSession:
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    builder = SparkSession.builder.appName(app)
    if master.startswith("sc://"):
        return builder.remote(master).getOrCreate()
    builder = (builder.master(master)
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "4")
               .config("spark.default.parallelism", "4")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.files.openCostInBytes", str(64 * 1024))
               .config("spark.driver.memory", "2g"))
    if master.startswith("local"):
        builder = builder.config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.host", "127.0.0.1")
    session = builder.getOrCreate()
    try:
        session.sparkContext.setLogLevel("ERROR")
    except Exception:  # noqa: BLE001 - Spark Connect has no SparkContext
        pass
    return session


# -- schemas: explicit, nothing is inferred ----------------------------------------------
TEXT = T.StringType()
# A record's field as Spark reads it, by its annotation in amqp_conformance.fixtures.core.outcomes.CaseResult.
_SPARK_TYPES = {"str": TEXT, "str | None": TEXT, "float": T.DoubleType(),
                "list[str]": T.ArrayType(TEXT), "dict[str, str]": T.MapType(TEXT, TEXT),
                "dict[str, float]": T.MapType(TEXT, T.DoubleType())}


def record_schema() -> T.StructType:
    """The results table's schema: every field of the case record (amqp_conformance.fixtures.core.outcomes.
    CaseResult) but its attachments (landed apart), then the run, the line and the key
    landing adds. A field added to the record arrives here with nothing else to edit."""
    kept = [f for f in fields(CaseResult) if f.name != "attachments"]
    return T.StructType([*(T.StructField(f.name, _SPARK_TYPES[str(f.type)]) for f in kept),
                         T.StructField("run_id", TEXT), T.StructField("line", T.LongType()),
                         T.StructField("uuid", TEXT)])


RESULTS = record_schema()
RUNS = T.StructType([
    T.StructField("run_id", T.StringType()), T.StructField("broker", T.StringType()),
    T.StructField("broker_version", T.StringType()), T.StructField("broker_origin", T.StringType()),
    T.StructField("started_at", T.StringType()), T.StructField("ended_at", T.StringType()),
    T.StructField("duration_s", T.DoubleType()), T.StructField("exit_status", T.LongType()),
    T.StructField("suite_git_sha", T.StringType()),
    T.StructField("outcomes", T.MapType(T.StringType(), T.LongType())),
    T.StructField("options", T.StringType()), T.StructField("run_dir", T.StringType()),
    T.StructField("transport", T.StringType()),
])
EVENTS = T.StructType([
    T.StructField("run_id", T.StringType()), T.StructField("result_uuid", T.StringType()),
    T.StructField("line", T.LongType()), T.StructField("t", T.DoubleType()), T.StructField("kind", T.StringType()),
    T.StructField("seq", T.LongType()), T.StructField("message_id", T.StringType()),
    T.StructField("channel", T.LongType()), T.StructField("multiple", T.BooleanType()),
    T.StructField("ack", T.BooleanType()), T.StructField("delivery_tag", T.LongType()),
    T.StructField("redelivered", T.BooleanType()), T.StructField("consumer", T.StringType()),
    T.StructField("requeue", T.BooleanType()), T.StructField("scope", T.StringType()),
    T.StructField("code", T.LongType()), T.StructField("text", T.StringType()), T.StructField("by", T.StringType()),
    T.StructField("name", T.StringType()), T.StructField("phase", T.StringType()),
    T.StructField("detail", T.StringType()),
])
ID_LIST = T.ArrayType(T.StringType())
CHECKS = T.StructType([
    T.StructField("run_id", T.StringType()), T.StructField("result_uuid", T.StringType()),
    T.StructField("fault", T.StringType()), T.StructField("queue_type", T.StringType()),
    T.StructField("published", T.LongType()), T.StructField("confirmed", T.LongType()),
    T.StructField("delivered", T.LongType()),
    *[T.StructField(k, ID_LIST) for k in ("lost", "unexpected", "duplicated", "recovered",
                                          "unflagged_redeliveries", "double_resolutions",
                                          "watermark_violations")],
    T.StructField("detection_latency_s", T.DoubleType()),
])
PERF = T.StructType([
    T.StructField("run_id", T.StringType()), T.StructField("result_uuid", T.StringType()),
    T.StructField("rule", T.StringType()), T.StructField("case", T.StringType()),
    T.StructField("position", T.LongType()), T.StructField("setting", T.StringType()),
    T.StructField("instrument", T.StringType()), T.StructField("unit", T.StringType()),
    T.StructField("claim", T.StringType()), T.StructField("median", T.DoubleType()),
    T.StructField("min", T.DoubleType()), T.StructField("max", T.DoubleType()),
    T.StructField("repetitions", T.LongType()), T.StructField("load", T.DoubleType()),
    T.StructField("unsupported", T.StringType()),
])
SAFETY_KINDS = ("lost", "unexpected", "duplicated", "unflagged_redeliveries", "double_resolutions",
                "watermark_violations", "recovered")


def load(spark: SparkSession, staging: Path) -> dict[str, DataFrame]:
    def read(name: str, schema: T.StructType) -> DataFrame:
        # JSON Lines, one record a line: never multiLine here (it would keep only line 1).
        return spark.read.schema(schema).option("mode", "PERMISSIVE").json(str(staging / f"{name}.jsonl"))
    return {"runs": read("runs", RUNS), "results": read("results", RESULTS),
            "events": read("events", EVENTS), "checks": read("checks", CHECKS), "perf": read("perf", PERF)}


def allure_status():
    """The status Allure shows an outcome as (amqp_conformance.fixtures.core.outcomes.ALLURE_STATUS), for the
    history points of older runs; a skipped case is skipped."""
    expr = F.lit("skipped")
    for outcome, status in ALLURE_STATUS.items():
        expr = F.when(F.col("outcome") == str(outcome), status).otherwise(expr)
    return expr


def shape_results(results: DataFrame, runs: DataFrame) -> DataFrame:
    """One row per case record, with its broker and its run's start."""
    shaped = results.select(
        "run_id", "uuid", F.md5(F.col("allure")["uuid"]).alias("report_id"),
        F.col("case").alias("name"), F.col("allure")["full_name"].alias("full_name"), allure_status().alias("status"),
        F.col("evidence").alias("message"), F.when(F.col("rule") == "", None).otherwise(F.col("rule")).alias("rule"),
        "outcome", "deviation", F.col("allure")["history_id"].alias("history_id"),
        F.round(F.col("start") * 1000).cast("long").alias("start_ms"),
        F.round(F.col("stop") * 1000).cast("long").alias("stop_ms"))
    run_cols = runs.select("run_id", "broker", "broker_version", F.to_timestamp("started_at").alias("run_started"))
    return (shaped.join(run_cols, "run_id", "inner")
            .withColumn("broker_key", F.concat_ws(" ", "broker", "broker_version")))


def _rank(col: str = "outcome"):
    """amqp_conformance.reports.cells.rank as a column expression."""
    expr = F.lit(cells.UNKNOWN_RANK)
    for outcome, rank in cells.RANK.items():
        expr = F.when(F.col(col) == outcome, rank).otherwise(expr)
    return expr


def rule_runs(shaped: DataFrame) -> DataFrame:
    """One row per (broker, rule, run): the rule's outcome from its cases' (amqp_conformance.reports.cells),
    the case that decided it (its report id is the cell's link), and every case of the
    rule with its outcome and report id."""
    ranked = shaped.where(F.col("rule").isNotNull()).withColumn("rank", _rank())
    w = Window.partitionBy("broker_key", "rule", "run_id").orderBy("rank", "name")
    deciding = F.struct("rank", "i")
    return (ranked.withColumn("i", F.row_number().over(w))
            .groupBy("broker_key", "broker", "broker_version", "rule", "run_id", "run_started")
            .agg(F.element_at(F.array(*map(F.lit, cells.NAMES)), F.min("rank") + 1).alias("outcome"),
                 F.min_by("report_id", deciding).alias("report_id"),
                 F.min_by("message", deciding).alias("message"),
                 F.min_by("name", deciding).alias("case"),
                 F.count("*").alias("cases"),
                 F.array_sort(F.collect_list("outcome")).alias("outcomes"),
                 F.array_sort(F.collect_list(F.struct("name", "outcome", "report_id"))).alias("case_links"),
                 # deviation: "known" or "new" (the baseline plugin), or a reason (a marker)
                 F.max(F.col("deviation").isNotNull() & (F.col("deviation") != "new")).alias("known_deviation"),
                 F.max(F.coalesce(F.col("deviation") == "new", F.lit(False))).alias("changed")))


def matrix(per_run: DataFrame) -> DataFrame:
    """broker x rule: the latest outcome and the pass rate over all runs, both of the rule's
    outcome (amqp_conformance.reports.cells; pass and info count as passing, non-strict does not)."""
    w = Window.partitionBy("broker_key", "rule").orderBy(F.col("run_started").desc(), F.col("run_id").desc())
    latest = (per_run.withColumn("n", F.row_number().over(w)).where("n = 1")
              .select("broker_key", "rule", F.col("outcome").alias("latest_outcome"),
                      F.col("run_id").alias("latest_run"), F.col("report_id").alias("latest_report_id"),
                      F.col("message").alias("latest_message"), F.col("case").alias("latest_case"),
                      F.col("case_links").alias("latest_case_links"), F.col("known_deviation"),
                      F.col("changed").alias("latest_changed"), F.col("cases").alias("latest_cases"),
                      F.col("outcomes").alias("latest_outcomes")))
    rates = (per_run.groupBy("broker_key", "broker", "broker_version", "rule")
             .agg(F.count("*").alias("runs"),
                  F.sum(F.col("outcome").isin(*map(str, PASSING)).cast("int")).alias("passed_runs")))
    return (rates.join(latest, ["broker_key", "rule"])
            .withColumn("pass_rate", F.round(F.col("passed_runs") / F.col("runs"), 4)))


def run_outcomes(shaped: DataFrame) -> DataFrame:
    """One row per (run, outcome class): how many of the run's cases had it. The matrix
    page's charts (outcome counts per broker, pass rate per run) are drawn from these."""
    return (shaped.groupBy("run_id", "broker_key", "run_started", "outcome")
            .agg(F.count("*").alias("cases")))


def flaky(per_run: DataFrame) -> DataFrame:
    """Rules with mixed outcomes for the same broker: how many runs, which outcomes, how
    often the outcome changed from one run to the next (flip rate)."""
    w = Window.partitionBy("broker_key", "rule").orderBy("run_started", "run_id")
    flips = per_run.withColumn("flip", (F.lag("outcome").over(w) != F.col("outcome")).cast("int"))
    return (flips.groupBy("broker_key", "rule")
            .agg(F.count("*").alias("runs"), F.array_sort(F.collect_set("outcome")).alias("outcomes"),
                 F.coalesce(F.sum("flip"), F.lit(0)).alias("flips"))
            .where(F.size("outcomes") > 1)
            .withColumn("flip_rate", F.round(F.col("flips") / (F.col("runs") - 1), 4)))


def safety(checks: DataFrame, shaped: DataFrame, events: DataFrame | None = None) -> DataFrame:
    """Safety findings from the fault tests' history checks, by broker and fault; with the
    events, also what the histories themselves show (the *_seen columns), so a checker
    that misses something stands out."""
    keyed = checks.join(shaped.select(F.col("uuid").alias("result_uuid"), "run_id", "broker_key", "rule"),
                        ["run_id", "result_uuid"], "inner")
    seen_cols = ("lost_seen", "duplicated_seen", "unexpected_seen", "unflagged_seen")
    if events is not None:
        keyed = keyed.join(seen_in_histories(events), KEY, "left")
    else:
        keyed = keyed.select("*", *[F.lit(None).cast("long").alias(c) for c in seen_cols])
    sizes = [F.sum(F.greatest(F.size(F.coalesce(F.col(k), F.array().cast(ID_LIST))), F.lit(0))).alias(k)
             for k in SAFETY_KINDS]
    return (keyed.groupBy("broker_key", F.coalesce("fault", F.lit("none")).alias("fault"))
            .agg(F.count("*").alias("checked_tests"), F.countDistinct("run_id").alias("runs"),
                 F.sum("published").alias("published"), F.sum("confirmed").alias("confirmed"),
                 F.sum("delivered").alias("delivered"), *sizes,
                 *[F.sum(F.coalesce(c, F.lit(0))).alias(c) for c in seen_cols],
                 F.max("detection_latency_s").alias("max_detection_latency_s"))
            .withColumn("violations", sum(F.col(k) for k in SAFETY_KINDS if k != "recovered")))


KEY = ["run_id", "result_uuid"]


def first_confirms(events: DataFrame) -> DataFrame:
    """Each published seq's first confirm (time and ack/nack). A multiple=true confirm
    covers every seq above the previous multiple confirm's watermark."""
    key = KEY
    confirms = events.where("kind = 'confirm' AND seq IS NOT NULL").select(*key, "seq", "multiple", "ack", "t")
    single = (confirms.where(~F.coalesce("multiple", F.lit(False)))
              .select(*key, "seq", F.col("t").alias("t_conf"), "ack"))
    w = Window.partitionBy(*key).orderBy("t", "seq").rowsBetween(Window.unboundedPreceding, -1)
    multi = (confirms.where(F.coalesce("multiple", F.lit(False)))
             .withColumn("floor", F.coalesce(F.max("seq").over(w), F.lit(0)))
             .where(F.col("seq") > F.col("floor"))
             .select(*key, F.explode(F.sequence(F.col("floor") + 1, F.col("seq"))).alias("seq"),
                     F.col("t").alias("t_conf"), "ack"))
    return (single.unionByName(multi).groupBy(*key, "seq")
            .agg(F.min("t_conf").alias("t_conf"), F.min_by(F.coalesce("ack", F.lit(True)), "t_conf").alias("ack")))


def seen_in_histories(events: DataFrame) -> DataFrame:
    """The safety counts the histories themselves show, per fault test, independently of
    the checker's verdict: confirmed (acked) but never delivered, delivered more than
    once, delivered but never published, and a repeat delivery without redelivered=true."""
    key = KEY
    published = events.where("kind = 'publish' AND message_id IS NOT NULL").select(*key, "seq", "message_id")
    acked = (published.join(first_confirms(events).where("ack"), [*key, "seq"], "inner")
             .select(*key, "message_id").distinct())
    order = Window.partitionBy(*key, "message_id").orderBy("t", "line")
    deliveries = (events.where("kind = 'deliver' AND message_id IS NOT NULL")
                  .withColumn("n", F.row_number().over(order))
                  .groupBy(*key, "message_id")
                  .agg(F.count("*").alias("deliveries"),
                       F.sum(((F.col("n") > 1) & ~F.coalesce("redelivered", F.lit(False))).cast("int"))
                       .alias("unflagged")))
    ids = published.select(*key, "message_id").distinct().withColumn("published", F.lit(True))
    per_id = (deliveries.join(ids, [*key, "message_id"], "full")
              .join(acked.withColumn("acked", F.lit(True)), [*key, "message_id"], "full"))
    return (per_id.groupBy(*key).agg(
        F.sum((F.col("acked") & F.col("deliveries").isNull()).cast("int")).alias("lost_seen"),
        F.sum((F.col("deliveries") > 1).cast("int")).alias("duplicated_seen"),
        F.sum((F.col("deliveries").isNotNull() & F.col("published").isNull()).cast("int")).alias("unexpected_seen"),
        F.sum((F.coalesce("unflagged", F.lit(0)) > 0).cast("int")).alias("unflagged_seen")))


def confirm_latency(events: DataFrame, checks: DataFrame, shaped: DataFrame) -> DataFrame:
    """publish -> first confirm latency (ms) per published seq, then percentiles by broker
    and fault (the history check's fault, else the history's first fault event)."""
    key = KEY
    publishes = events.where("kind = 'publish' AND seq IS NOT NULL").select(*key, "seq", F.col("t").alias("t_pub"))
    latencies = (publishes.join(first_confirms(events), [*key, "seq"], "inner")
                 .withColumn("latency_ms", (F.col("t_conf") - F.col("t_pub")) * 1000.0)
                 .where(F.col("latency_ms") >= 0))
    fault_of_history = (events.where("kind = 'fault'").groupBy(*key)
                        .agg(F.min_by("name", "t").alias("fault_event")))
    fault_of_check = checks.select(*key, F.col("fault").alias("fault_check"))
    brokers = shaped.select("run_id", F.col("uuid").alias("result_uuid"), "broker_key")
    tagged = (latencies.join(brokers, key, "inner").join(fault_of_history, key, "left")
              .join(fault_of_check, key, "left")
              .withColumn("fault", F.coalesce("fault_check", "fault_event", F.lit("none"))))
    pct = F.percentile("latency_ms", F.array(*[F.lit(p) for p in (0.5, 0.9, 0.99)]))
    return (tagged.groupBy("broker_key", "fault")
            .agg(F.count("*").alias("confirms"), pct.alias("p"), F.max("latency_ms").alias("max_ms"))
            .select("broker_key", "fault", "confirms", F.round(F.col("p")[0], 3).alias("p50_ms"),
                    F.round(F.col("p")[1], 3).alias("p90_ms"), F.round(F.col("p")[2], 3).alias("p99_ms"),
                    F.round("max_ms", 3).alias("max_ms")))


PERF_KEY = ["broker_key", "rule", "case", "instrument", "setting", "unit"]


def perf_figures(perf: DataFrame, shaped: DataFrame) -> DataFrame:
    """Each PERF figure with its broker and its run's start; a figure of the suite's own
    instrument gets PerfTest's figure of the same setting, case and run beside it, and
    the ratio of the two (measured in the same run, so on the same machine load)."""
    brokers = shaped.select("run_id", F.col("uuid").alias("result_uuid"), "broker_key", "run_started")
    figures = perf.join(brokers, KEY, "inner")
    theirs = (figures.where(F.col("instrument") == "PerfTest")
              .select("run_id", *[c for c in PERF_KEY if c != "instrument"], F.col("median").alias("perftest_median")))
    return (figures.join(theirs, ["run_id", *[c for c in PERF_KEY if c != "instrument"]], "left")
            .withColumn("perftest_median", F.when(F.col("instrument") != "PerfTest", F.col("perftest_median")))
            .withColumn("to_perftest", F.when(F.col("perftest_median") > 0,
                                              F.round(F.col("median") / F.col("perftest_median"), 3))))


def perf_trends(figures: DataFrame) -> DataFrame:
    """One row per (broker, rule, case, instrument, setting): the latest run's figure (median,
    spread, load, the guides' claim, the ratio to PerfTest) and its trend over every stored
    run that measured it: the medians in run order, the previous one and the change."""
    in_order = Window.partitionBy(*PERF_KEY).orderBy("run_started", "run_id")
    newest_first = Window.partitionBy(*PERF_KEY).orderBy(F.col("run_started").desc(), F.col("run_id").desc())
    latest = (figures.withColumn("previous", F.lag("median").over(in_order))
              .withColumn("n", F.row_number().over(newest_first)).where("n = 1")
              .select(*PERF_KEY, "claim", "median", "min", "max", "repetitions", "load", "unsupported",
                      "perftest_median", "to_perftest", "previous", F.col("run_id").alias("latest_run"),
                      F.col("run_started").alias("latest_started")))
    history = (figures.groupBy(*PERF_KEY)
               .agg(F.min("position").alias("position"), F.count("median").alias("runs"),
                    F.min("median").alias("lowest"), F.max("median").alias("highest"),
                    F.array_sort(F.collect_list(F.struct("run_started", "run_id", "median"))).alias("series")))
    return (latest.join(history, PERF_KEY, "inner")
            .withColumn("trend", F.transform(F.filter("series", lambda s: s["median"].isNotNull()),
                                             lambda s: s["median"]))
            .withColumn("change", F.when(F.col("previous") > 0, F.round(F.col("median") / F.col("previous") - 1, 3)))
            .drop("series"))


def write_tables(tables: dict[str, DataFrame], data_dir: Path) -> None:
    for name, frame in tables.items():
        frame.coalesce(4).write.mode("overwrite").parquet(str(data_dir / name))
