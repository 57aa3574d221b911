"""The Spark side: the session, explicit schemas, reading the run folders, the Parquet
tables and the analyses.

Spark reads the new runs' results.jsonl files itself, in parallel (read_runs): each file
whole, split into its lines, each line parsed with the record's schema (derived from
amqp_conformance.fixtures.core.outcomes.CaseResult), the message histories, history checks
and PERF figures out of the records' attachments.

Tables under the data root (any URI Spark writes; <site>/data by default), each run in
them once, by run id (landing.plan decides what is new):
  runs          one row per landed run: the manifest's facts and the run's counts (the catalog)
  results, events, checks, confirms
                partitioned by broker version and date (broker_dir=…/date=…): one case
                record, history event, history check, first confirm of a published seq
  rule_runs, run_outcomes, fault_checks, perf
                per run: a rule's outcome, the count of each outcome, a fault test's check
                with what its history shows, the PERF figures
A build appends what the new runs add to each table and recomputes the summaries (the
matrix, flaky rules, safety, confirm latency, PERF trends) from the small per-run tables,
never from the stored runs. The pass rates, flaky rules and latency percentiles cover a
window (the last N runs of each broker version, or its last N days).
Every case comes from its record (results.jsonl, amqp_conformance.fixtures.core.outcomes.CaseResult): rule,
outcome, deviation and the key Allure gave it are fields, never read back out of Allure.
Only the DataFrame API is used (no Python UDF), so the same code runs on local[*], a
cluster master or Spark Connect, and executors need no Python of ours.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, fields

from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from amqp_conformance.fixtures.core import stored_runs
from amqp_conformance.fixtures.core.outcomes import (ALLURE_STATUS, CHECK_ATTACHMENT, HISTORY_ATTACHMENT, PASSING,
                                                     CaseResult)

from . import cells
from .landing import PERF as PERF_ATTACHMENT
from .landing import Run, shown
from .storage import Store, join, path_key

# What the pipeline sets when nobody configured it (spark-submit --conf, spark-defaults.conf
# or build --conf win): times are UTC (a run's date is its UTC date), no web UI, no progress bar.
DEFAULTS = {"spark.sql.session.timeZone": "UTC", "spark.ui.enabled": "false"}
QUIET = {"spark.ui.showConsoleProgress": "false"}  # pyspark's launcher turns the bars on; build --conf may again
# A local master (this machine alone) when nobody configured otherwise: Spark's own defaults are
# made for clusters (200 shuffle partitions, a 1 GB driver), and on one small machine they made
# a ten-run build take minutes and a real run's histories overflow the heap.
LOCAL_DEFAULTS = {"spark.driver.bindAddress": "127.0.0.1", "spark.driver.host": "127.0.0.1",
                  "spark.sql.shuffle.partitions": "4"}
# Read when the JVM starts, so given at launch (below), when we launch it. The JIT's second
# tier (C2) and a parallel collector are made for long-lived servers: a build's JVM lives a
# minute or two, and on this 2-core machine C2 spent half its CPU compiling (a ten-run build:
# 133 s of CPU with them, 71 s with the first tier only and the serial collector).
LAUNCH_DEFAULTS = {"spark.driver.memory": "2g",
                   "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"}


# -- session ------------------------------------------------------------------------------
def spark_session(master: str | None = None, app: str = "amqp-conformance-reports",
                  conf: dict[str, str] | None = None) -> SparkSession:
    """The session. The master is `master` when given, else whatever is configured
    (spark-submit --master, spark.master in spark-defaults.conf), else local[*]. Shuffle
    partitions, memory and the rest come from Spark's configuration (`conf` adds to it):
    nothing about the machine is written here."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    builder = SparkSession.builder.appName(app)
    if master and master.startswith("sc://"):
        return builder.remote(master).getOrCreate()
    from pyspark import SparkConf, SparkContext
    wanted = dict(conf or {})
    if master:
        wanted["spark.master"] = master
    # The JVM first (under spark-submit it is already there, with the submit's settings):
    # what it was given is what is configured.
    launch = dict(wanted)
    if "PYSPARK_GATEWAY_PORT" not in os.environ:  # not under spark-submit: we launch it
        for key, value in LAUNCH_DEFAULTS.items():
            if not _in_spark_defaults(key):
                launch.setdefault(key, value)
    SparkContext._ensure_initialized(conf=SparkConf(loadDefaults=False).setAll(list(launch.items())))
    configured = SparkConf()
    if not configured.contains("spark.master"):
        wanted["spark.master"] = "local[*]"
    chosen = wanted.get("spark.master") or configured.get("spark.master")
    defaults = {**DEFAULTS, **(LOCAL_DEFAULTS if chosen.startswith("local") else {})}
    for key, value in {**{k: v for k, v in defaults.items() if not configured.contains(k)}, **QUIET, **wanted}.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def _in_spark_defaults(key: str) -> bool:
    """Whether the spark-defaults.conf the launcher reads sets `key` (then it wins)."""
    conf_dir = os.environ.get("SPARK_CONF_DIR") or os.path.join(os.environ.get("SPARK_HOME", ""), "conf")
    try:
        with open(os.path.join(conf_dir, "spark-defaults.conf"), encoding="utf-8") as defaults:
            return any(line.split(None, 1)[0] == key for line in defaults if line.strip() and not line.startswith("#"))
    except OSError:
        return False


# -- schemas: explicit, nothing is inferred ----------------------------------------------
TEXT = T.StringType()
# A record's field as Spark reads it, by its annotation in amqp_conformance.fixtures.core.outcomes.CaseResult.
_SPARK_TYPES = {"str": TEXT, "str | None": TEXT, "float": T.DoubleType(), "int": T.LongType(),
                "bool": T.BooleanType(), "list[str]": T.ArrayType(TEXT), "dict[str, str]": T.MapType(TEXT, TEXT),
                "dict[str, float]": T.MapType(TEXT, T.DoubleType()),
                # a list of small records (a rerun case's earlier attempts): each as name -> text
                "list[dict]": T.ArrayType(T.MapType(TEXT, TEXT))}


def record_fields() -> list[T.StructField]:
    """Every field of the case record (amqp_conformance.fixtures.core.outcomes.CaseResult)
    but its attachments (read apart), as Spark reads it. A field added to the record
    arrives in the results table with nothing else to edit."""
    return [T.StructField(f.name, _SPARK_TYPES[str(f.type)]) for f in fields(CaseResult) if f.name != "attachments"]


def record_schema() -> T.StructType:
    """A results.jsonl line as the first pass reads it: the record, and of its attachments
    only the small ones (the history check and the PERF figures); the message history,
    the large one, is read by its own pass (events)."""
    wanted = T.StructType([T.StructField(CHECK_ATTACHMENT, TEXT), T.StructField(PERF_ATTACHMENT, TEXT)])
    return T.StructType([*record_fields(), T.StructField("attachments", wanted)])


def history_schema() -> T.StructType:
    """A results.jsonl line as the events pass reads it: what keys the record, and its history."""
    return T.StructType([T.StructField("rule", TEXT), T.StructField("outcome", TEXT),
                         T.StructField("allure", T.MapType(TEXT, TEXT)),
                         T.StructField("attachments", T.StructType([T.StructField(HISTORY_ATTACHMENT, TEXT)]))])


RUNS = T.StructType([
    T.StructField("run_id", T.StringType()), T.StructField("broker", T.StringType()),
    T.StructField("broker_version", T.StringType()), T.StructField("broker_origin", T.StringType()),
    T.StructField("started_at", T.StringType()), T.StructField("ended_at", T.StringType()),
    T.StructField("duration_s", T.DoubleType()), T.StructField("exit_status", T.LongType()),
    T.StructField("suite_git_sha", T.StringType()),
    T.StructField("outcomes", T.MapType(T.StringType(), T.LongType())),
    T.StructField("options", T.StringType()), T.StructField("run_dir", T.StringType()),
    T.StructField("transport", T.StringType()), T.StructField("allure_results", T.StringType()),
    T.StructField("broker_key", T.StringType()), T.StructField("broker_dir", T.StringType()),
    T.StructField("run_started", T.TimestampType()), T.StructField("date", T.StringType()),
    # what Spark read of the run: its case records, history events, history checks, PERF figures
    *[T.StructField(n, T.LongType()) for n in ("results", "events", "checks", "figures")],
])
COUNTS = ("results", "events", "checks", "figures")
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


FIGURES = T.StructType([
    T.StructField("rule", TEXT), T.StructField("case", TEXT),
    T.StructField("figures", T.ArrayType(T.StructType([
        T.StructField("setting", TEXT), T.StructField("instrument", TEXT), T.StructField("unit", TEXT),
        T.StructField("claim", TEXT), T.StructField("median", T.DoubleType()), T.StructField("min", T.DoubleType()),
        T.StructField("max", T.DoubleType()), T.StructField("runs", T.ArrayType(T.DoubleType())),
        T.StructField("loads", T.ArrayType(T.DoubleType())), T.StructField("unsupported", TEXT)]))),
])
PARTS = ["broker_dir", "date"]  # the partition columns of the per-case tables
RUN_COLS = ["run_id", "broker", "broker_version", "broker_key", "broker_dir", "date", "run_started"]


def file_key(column):
    """The path of a file Spark read (its _metadata.file_path, a URI with its path
    URL-encoded) as storage.path_key writes a location: no scheme, decoded."""
    bare = F.regexp_replace(column, r"^[A-Za-z][A-Za-z0-9+.-]+:(//[^/]*)?", "")
    return F.url_decode(F.regexp_replace(bare, r"\+", "%2B"))


@dataclass
class Read:
    """What Spark read of the new runs: their rows, the case tables (not yet written),
    and the input it skipped, by name."""
    runs: DataFrame  # RUN_COLS of each new run
    results: DataFrame  # shaped: one row per good case record
    checks: DataFrame
    figures: DataFrame  # perf_figures: one row per PERF figure
    events: DataFrame  # one row per history line, a line that is no event kept as its text (`corrupt`)
    problems: list[str]
    lost: set[str]  # runs not landed: their records do not add up to their manifests' counts


def read_runs(spark: SparkSession, new: list[Run]) -> Read:
    """Spark reads the new runs' results.jsonl, every file whole and in parallel, then
    splits each into its lines (line numbers as in the file) and parses them with the
    record's schema: nothing is read line by line on the driver."""
    runs = spark.createDataFrame([{**r.row, **{c: None for c in COUNTS}} for r in new], RUNS)
    keyed = spark.createDataFrame([(path_key(r.results), r.run_id, shown(r.results)) for r in new],
                                  "results_key string, run_id string, results_file string")
    text = (spark.read.text([r.results for r in new], wholetext=True)
            .select(file_key(F.col("_metadata.file_path")).alias("results_key"), "value"))
    lines = (text.select("results_key", F.posexplode(F.split("value", "\n")).alias("pos", "text"))
             .where(F.trim("text") != "")
             .join(F.broadcast(keyed), "results_key")
             .select("run_id", "results_file", (F.col("pos") + 1).cast("long").alias("line"), "text")
             # A shuffle between a file's split into lines and the histories' split into events:
             # in one code-generated stage every event of a whole file is buffered at once (a
             # single real run's histories overflowed a 2 GB heap).
             .repartition("run_id", "line"))
    good = (F.coalesce(F.col("r.rule"), F.lit("")) != "") & (F.coalesce(F.col("r.outcome"), F.lit("")) != "")
    # the one pass over the files' text that everything but the histories comes from
    parsed = lines.select("run_id", "results_file", "line", F.from_json("text", record_schema()).alias("r")).cache()
    records = parsed.where(good)
    bad = [parsed.where(~good).select(F.concat_ws(":", "results_file", "line").alias("where"),
                                      F.lit("skipped, corrupt JSON or no case record (no rule or outcome)").alias("why"))]
    # A run whose records do not add up to its manifest's counts lost some since it was
    # stored: it is named and not landed (amqp_conformance.fixtures.core.stored_runs).
    found: dict[str, Counter] = {r.run_id: Counter() for r in new}
    for row in (parsed.where(F.coalesce(F.col("r.outcome"), F.lit("")) != "").groupBy("run_id", "r.outcome")
                .agg(F.count("*").alias("n"), F.count("r.deviation").alias("deviating")).collect()):
        found[row.run_id][row.outcome] += row.n
        found[row.run_id][stored_runs.DEVIATION_COUNT] += row.deviating
    lost = {r.run_id: stored_runs.mismatch_in_counts(r.manifest, found[r.run_id], shown(r.results.rsplit("/", 1)[0]))
            for r in new}
    lost = {run_id: why for run_id, why in lost.items() if why}
    run_cols = runs.select(*RUN_COLS).where(~F.col("run_id").isin(list(lost)))
    shaped = shape_results(records.select("run_id", "line", "r.*").drop("attachments"), run_cols)
    source = F.concat_ws(":", "results_file", "line")
    uuid = F.coalesce(F.col("r.allure")["uuid"], F.concat_ws(":", "run_id", "line")).alias("result_uuid")

    keys = ["run_id", uuid, source.alias("source")]
    check_text, corrupt = attachment(records, CHECK_ATTACHMENT, CHECKS, keys)
    bad.append(corrupt)
    checks = check_text.select("run_id", "result_uuid", *[f"a.{f.name}" for f in CHECKS.fields if f.name not in KEY])
    figure_text, corrupt = attachment(records, PERF_ATTACHMENT, FIGURES, keys, needs="figures")
    bad.append(corrupt)
    each = figure_text.select("run_id", "result_uuid", "source", F.col("a.rule").alias("rule"),
                              F.col("a.case").alias("case"),
                              F.posexplode("a.figures").alias("position", "f"))
    has_setting = F.coalesce(F.col("f.setting"), F.lit("")) != ""
    bad.append(each.where(~has_setting).select(
        F.concat_ws(" ", "source", F.lit(PERF_ATTACHMENT)).alias("where"),
        F.concat(F.lit("skipped figure "), F.col("position").cast("string"), F.lit(", it has no setting")).alias("why")))
    skipped = bad[0]
    for more in bad[1:]:
        skipped = skipped.unionByName(more)
    problems = sorted([*lost.values(), *(f"{row.where}: {row.why}" for row in skipped.collect())])  # one job
    loads = F.filter(F.coalesce("f.loads", F.array().cast("array<double>")), lambda x: x.isNotNull())
    perf = each.where(has_setting).select(
        "run_id", "result_uuid", "rule", "case", F.col("position").cast("long").alias("position"),
        F.col("f.setting").alias("setting"), F.coalesce("f.instrument", F.lit("ours")).alias("instrument"),
        F.col("f.unit").alias("unit"), F.col("f.claim").alias("claim"), F.col("f.median").alias("median"),
        F.col("f.min").alias("min"), F.col("f.max").alias("max"),
        F.size(F.filter(F.coalesce("f.runs", F.array().cast("array<double>")), lambda x: x.isNotNull()))
        .cast("long").alias("repetitions"),
        F.try_element_at(F.array_sort(loads), (F.floor(F.size(loads) / 2) + 1).cast("int")).alias("load"),
        F.col("f.unsupported").alias("unsupported"))

    # The histories: their own pass over the files (a history is most of a record's bytes).
    history = F.col("h.attachments").getField(HISTORY_ATTACHMENT)
    histories = (lines.select("run_id", "line", F.from_json("text", history_schema()).alias("h"))
                 .where((F.coalesce(F.col("h.rule"), F.lit("")) != "")
                        & (F.coalesce(F.col("h.outcome"), F.lit("")) != "") & history.isNotNull())
                 .select("run_id", F.coalesce(F.col("h.allure")["uuid"], F.concat_ws(":", "run_id", "line"))
                         .alias("result_uuid"), history.alias("history"))
                 # split in a projection of its own: beside the parsed record, every event row
                 # carried its whole history along (a real run's overflowed a 2 GB heap)
                 .select("run_id", "result_uuid", F.posexplode(F.split("history", "\n")).alias("pos", "event")))
    event = F.from_json("event", EVENTS)
    events = (histories.where(F.trim("event") != "").withColumn("e", event)
              .select("run_id", "result_uuid", (F.col("pos") + 1).cast("long").alias("line"),
                      *[F.col(f"e.{f.name}").alias(f.name) for f in EVENTS.fields if f.name not in (*KEY, "line")],
                      F.when(F.col("e.kind").isNull(), F.col("event")).alias("corrupt"))
              .join(F.broadcast(run_cols.select("run_id", *PARTS)), "run_id"))
    return Read(run_cols, shaped, checks.join(F.broadcast(run_cols.select("run_id", *PARTS)), "run_id"),
                perf_figures(perf, shaped), events, problems, set(lost))


def attachment(records: DataFrame, name: str, schema: T.StructType, keys: list,
               needs: str | None = None) -> tuple[DataFrame, DataFrame]:
    """The records that carry the attachment `name`, parsed with `schema` (column `a`), and
    the ones whose attachment is no JSON (or has no `needs` field, when given), named as
    skipped input (where, why). from_json cannot tell: it gives a row of nulls for text
    that is no JSON, so the text is also read whole ($)."""
    text = F.col("r.attachments").getField(name)
    corrupt = F.get_json_object(text, "$").isNull()
    parsed = records.where(text.isNotNull()).select(*keys, F.from_json(text, schema).alias("a"), corrupt.alias("bad"))
    if needs is not None:
        parsed = parsed.withColumn("bad", F.col("bad") | F.col(f"a.{needs}").isNull())
    skipped = parsed.where("bad").select(F.concat_ws(" ", "source", F.lit(name)).alias("where"),
                                         F.lit(f"skipped, corrupt {name}").alias("why"))
    return parsed.where(~F.col("bad")).drop("bad"), skipped


def allure_status():
    """The status Allure shows an outcome as (amqp_conformance.fixtures.core.outcomes.ALLURE_STATUS), for the
    history points of older runs; a skipped case is skipped."""
    expr = F.lit("skipped")
    for outcome, status in ALLURE_STATUS.items():
        expr = F.when(F.col("outcome") == str(outcome), status).otherwise(expr)
    return expr


def shape_results(results: DataFrame, runs: DataFrame) -> DataFrame:
    """One row per case record: the record's fields as it was written, then what the
    reports read (its key in the run, its Allure ids and status, its start and stop in
    ms) and its run's broker, partition and start."""
    record = [f.name for f in record_fields() if f.name not in ("rule",)]
    shaped = results.select(
        *record, "line", F.coalesce(F.col("allure")["uuid"], F.concat_ws(":", "run_id", "line")).alias("uuid"),
        "run_id", F.md5(F.col("allure")["uuid"]).alias("report_id"),
        F.col("case").alias("name"), F.col("allure")["full_name"].alias("full_name"), allure_status().alias("status"),
        F.col("evidence").alias("message"), F.when(F.col("rule") == "", None).otherwise(F.col("rule")).alias("rule"),
        F.col("allure")["history_id"].alias("history_id"),
        F.round(F.col("start") * 1000).cast("long").alias("start_ms"),
        F.round(F.col("stop") * 1000).cast("long").alias("stop_ms"))
    return shaped.join(F.broadcast(runs.select(*RUN_COLS)), "run_id", "inner")


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


def matrix(per_run: DataFrame, window: DataFrame | None = None) -> DataFrame:
    """broker x rule: the latest outcome, and the pass rate over the window's runs (every
    run without one), both of the rule's outcome (amqp_conformance.reports.cells; pass and
    info count as passing, non-strict does not). A rule the window's runs did not run
    keeps its latest outcome, with no pass rate."""
    w = Window.partitionBy("broker_key", "rule").orderBy(F.col("run_started").desc(), F.col("run_id").desc())
    latest = (per_run.withColumn("n", F.row_number().over(w)).where("n = 1")
              .select("broker_key", "broker", "broker_version", "rule", F.col("outcome").alias("latest_outcome"),
                      F.col("run_id").alias("latest_run"), F.col("report_id").alias("latest_report_id"),
                      F.col("message").alias("latest_message"), F.col("case").alias("latest_case"),
                      F.col("case_links").alias("latest_case_links"), F.col("known_deviation"),
                      F.col("changed").alias("latest_changed"), F.col("cases").alias("latest_cases"),
                      F.col("outcomes").alias("latest_outcomes")))
    rates = (in_window(per_run, window).groupBy("broker_key", "rule")
             .agg(F.count("*").alias("runs"),
                  F.sum(F.col("outcome").isin(*map(str, PASSING)).cast("long")).alias("passed_runs")))
    return (latest.join(rates, ["broker_key", "rule"], "left").fillna(0, ["runs", "passed_runs"])
            .withColumn("pass_rate", F.when(F.col("runs") > 0, F.round(F.col("passed_runs") / F.col("runs"), 4))))


def in_window(frame: DataFrame, window: DataFrame | None) -> DataFrame:
    """The rows of the window's runs (window: one run_id a row), or every row."""
    return frame if window is None else frame.join(F.broadcast(window.select("run_id")), "run_id", "left_semi")


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


def fault_checks(checks: DataFrame, shaped: DataFrame, seen: DataFrame | None = None) -> DataFrame:
    """One row per fault test's history check, with its broker, rule and the case's outcome
    and, when the histories were read, what they themselves show (the *_seen columns,
    seen_in_histories)."""
    keyed = checks.join(shaped.select(F.col("uuid").alias("result_uuid"), "run_id", "broker_key", "rule",
                                      "outcome"), KEY, "inner")
    if seen is not None:
        return keyed.join(seen, KEY, "left")
    return keyed.select("*", *[F.lit(None).cast("long").alias(c) for c in SEEN])


SEEN = ("lost_seen", "duplicated_seen", "unexpected_seen", "unflagged_seen")


def safety(checks: DataFrame, shaped: DataFrame, events: DataFrame | None = None) -> DataFrame:
    """Safety findings from the fault tests' history checks, by broker and fault; with the
    events, also what the histories themselves show (the *_seen columns), so a checker
    that misses something stands out."""
    seen = seen_in_histories(events, confirmed(events, checks)) if events is not None else None
    return safety_summary(fault_checks(checks, shaped, seen))


def safety_summary(checked: DataFrame) -> DataFrame:
    """fault_checks rows summed by broker and fault. A finding counts only where the
    history proves it: in a check the case held against the broker (its case did not
    pass). A passing case's check was the fault layer's afterthought over a queue the
    test did not drain (its "lost" messages may still be queued: FLT-09's are), so it is
    counted apart (unjudged_tests). "unexpected" (delivered, never published in the
    history: published outside it) is shown but is never a violation."""
    judged = ~F.coalesce(F.col("outcome").isin(*map(str, PASSING)), F.lit(False))
    sizes = [F.sum(F.when(judged, F.greatest(F.size(F.coalesce(F.col(k), F.array().cast(ID_LIST))), F.lit(0)))
                   .otherwise(0)).alias(k) for k in SAFETY_KINDS]
    return (checked.groupBy("broker_key", F.coalesce("fault", F.lit("none")).alias("fault"))
            .agg(F.count("*").alias("checked_tests"), F.sum((~judged).cast("int")).alias("unjudged_tests"),
                 F.countDistinct("run_id").alias("runs"),
                 F.sum("published").alias("published"), F.sum("confirmed").alias("confirmed"),
                 F.sum("delivered").alias("delivered"), *sizes,
                 *[F.sum(F.coalesce(c, F.lit(0))).alias(c) for c in SEEN],
                 F.max("detection_latency_s").alias("max_detection_latency_s"))
            .withColumn("violations", sum(F.col(k) for k in SAFETY_KINDS if k not in NOT_VIOLATIONS)))


NOT_VIOLATIONS = ("recovered", "unexpected")  # allowed (recovered) or outside the history (unexpected)


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


def confirmed(events: DataFrame, checks: DataFrame | None = None) -> DataFrame:
    """Each published seq with its first confirm, matched once (the confirms table; both
    the safety counts and the latencies read it), and the fault its test ran under (the
    history check's, else the history's first fault event)."""
    publishes = (events.where("kind = 'publish' AND seq IS NOT NULL")
                 .select(*KEY, "seq", "message_id", F.col("t").alias("t_pub")))
    fault_of_history = (events.where("kind = 'fault'").groupBy(*KEY)
                        .agg(F.min_by("name", "t").alias("fault_event")))
    matched = publishes.join(first_confirms(events), [*KEY, "seq"], "inner").join(fault_of_history, KEY, "left")
    if checks is None:
        matched = matched.withColumn("fault_check", F.lit(None).cast("string"))
    else:
        matched = matched.join(checks.select(*KEY, F.col("fault").alias("fault_check")), KEY, "left")
    return (matched.withColumn("fault", F.coalesce("fault_check", "fault_event", F.lit("none")))
            .drop("fault_check", "fault_event"))


def seen_in_histories(events: DataFrame, confirms: DataFrame | None = None) -> DataFrame:
    """The safety counts the histories themselves show, per fault test, independently of
    the checker's verdict: confirmed (acked) but never delivered, delivered more than
    once, delivered but never published, and a repeat delivery without redelivered=true.
    confirms: the histories' confirmed() rows, when already matched."""
    key = KEY
    if confirms is None:
        confirms = confirmed(events)
    published = events.where("kind = 'publish' AND message_id IS NOT NULL").select(*key, "seq", "message_id")
    acked = confirms.where("ack AND message_id IS NOT NULL").select(*key, "message_id").distinct()
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
    brokers = shaped.select("run_id", F.col("uuid").alias("result_uuid"), "broker_key")
    return latency_percentiles(confirmed(events, checks).join(brokers, KEY, "inner"))


def latencies(confirms: DataFrame) -> DataFrame:
    """confirmed() rows with their broker -> one row per confirm: run, broker, fault and its
    publish -> confirm latency in ms (the latencies table; a confirm before its publish, a
    clock step, is left out)."""
    return (confirms.select("run_id", "broker_key", "fault",
                            ((F.col("t_conf") - F.col("t_pub")) * 1000.0).alias("latency_ms"))
            .where(F.col("latency_ms") >= 0))


def latency_percentiles(confirms: DataFrame) -> DataFrame:
    """confirmed() rows with their broker -> latency percentiles by broker and fault."""
    return percentiles_of(latencies(confirms))


def percentiles_of(latencies: DataFrame) -> DataFrame:
    """latencies() rows -> exact percentiles by broker and fault."""
    pct = F.percentile("latency_ms", F.array(*[F.lit(p) for p in (0.5, 0.9, 0.99)]))
    return (latencies.groupBy("broker_key", "fault")
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
        ids = self.spark.createDataFrame([(r["run_id"],) for r in runs], "run_id string")
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
    per_run = [frame.groupBy("run_id").agg(F.lit(name).alias("table"), F.count("*").alias("rows"))
               for name, frame in (("results", read.results), ("checks", read.checks), ("figures", read.figures))]
    for row in per_run[0].unionByName(per_run[1]).unionByName(per_run[2]).collect():
        counts[row.run_id][row.table] = row.rows
    landed = [{**row, **counts[row["run_id"]]} for row in rows]
    tables.append("runs", spark.createDataFrame(landed, RUNS))
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
    ids = spark.createDataFrame([(r["run_id"],) for r in window], "run_id string")
    ensure_latencies(tables)  # when no run landed in this build
    checked, perf, latency = tables.read("fault_checks"), tables.read("perf"), tables.read(LATENCIES)
    return {
        "matrix": matrix(per_run, ids), "flaky": flaky(in_window(per_run, ids)),
        "pass_rates": pass_rates(tables.read("run_outcomes")),
        "safety": safety_summary(checked) if checked is not None else None,
        "latency": percentiles_of(in_window(latency, ids)) if latency is not None else None,
        "perf": perf_trends(perf) if perf is not None else None}


def pass_rates(outcomes: DataFrame) -> DataFrame:
    """A year of runs in a few points: each broker version's pass rate (the share of a
    run's cases that pass) by week: how many runs, their mean, lowest and highest."""
    per_run = (outcomes.groupBy("run_id", "broker_key", "run_started")
               .agg((F.sum(F.when(F.col("outcome").isin(*map(str, PASSING)), F.col("cases")).otherwise(0))
                     / F.sum("cases")).alias("rate")))
    return (per_run.groupBy("broker_key", F.date_trunc("week", "run_started").alias("week"))
            .agg(F.count("*").alias("runs"), F.round(F.avg("rate"), 4).alias("mean"),
                 F.round(F.min("rate"), 4).alias("lowest"), F.round(F.max("rate"), 4).alias("highest"),
                 F.max("run_started").alias("last_run")))
