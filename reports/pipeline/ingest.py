"""Reading the new runs: Spark reads each results.jsonl whole, in parallel, splits it into
lines and parses each with the record's schema; the message histories, history checks and
PERF figures come out of the records' attachments."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from amqp_conformance.fixtures.core import stored_runs
from amqp_conformance.fixtures.core.outcomes import CHECK_ATTACHMENT, HISTORY_ATTACHMENT
from ..landing import PERF as PERF_ATTACHMENT
from ..landing import Run, shown
from ..storage import path_key
from .analyses import perf_figures, shape_results
from .local_rows import local_frame
from .schemas import (CHECKS, COUNTS, EVENTS, FIGURES, KEY, PARTS, RUNS, RUN_COLS, history_schema,
                      record_schema)

# Each new run's results.jsonl: the key Spark's file path gives it, its run, the path as messages name it.
RESULTS_FILES = T.StructType([T.StructField(name, T.StringType()) for name in ("results_key", "run_id", "results_file")])


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
    rows: dict[str, dict[str, int]]  # each landed run's rows of results, checks and figures (none: absent)


def read_runs(spark: SparkSession, new: list[Run]) -> Read:
    """Spark reads the new runs' results.jsonl, every file whole and in parallel, then
    splits each into its lines (line numbers as in the file) and parses them with the
    record's schema: nothing is read line by line on the driver."""
    runs = local_frame(spark, [{**r.row, **{c: None for c in COUNTS}} for r in new], RUNS)
    keyed = local_frame(spark, [(path_key(r.results), r.run_id, shown(r.results)) for r in new], RESULTS_FILES)
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
    bad = [parsed.where(~good).select("run_id", F.concat_ws(":", "results_file", "line").alias("where"),
                                      F.lit("skipped, corrupt JSON or no case record (no rule or outcome)").alias("why"))]
    source = F.concat_ws(":", "results_file", "line")
    uuid = F.coalesce(F.col("r.allure")["uuid"], F.concat_ws(":", "run_id", "line")).alias("result_uuid")

    keys = ["run_id", uuid, source.alias("source")]
    check_text, corrupt = attachment(records, CHECK_ATTACHMENT, CHECKS, keys)
    bad.append(corrupt)
    figure_text, corrupt = attachment(records, PERF_ATTACHMENT, FIGURES, keys, needs="figures")
    bad.append(corrupt)
    each = figure_text.select("run_id", "result_uuid", "source", F.col("a.rule").alias("rule"),
                              F.col("a.case").alias("case"),
                              F.posexplode("a.figures").alias("position", "f"))
    has_setting = F.coalesce(F.col("f.setting"), F.lit("")) != ""
    bad.append(each.where(~has_setting).select(
        "run_id", F.concat_ws(" ", "source", F.lit(PERF_ATTACHMENT)).alias("where"),
        F.concat(F.lit("skipped figure "), F.col("position").cast("string"), F.lit(", it has no setting")).alias("why")))
    # What the driver needs of the new runs, in one job over the parsed records: each run's
    # outcome counts (checked against its manifest), the rows of each table, the input skipped.
    tally = (tallied(parsed.where(F.coalesce(F.col("r.outcome"), F.lit("")) != ""), "outcomes",
                     F.col("r.outcome"), F.col("r.deviation"))
             .unionByName(tallied(records, "results"))
             .unionByName(tallied(check_text, "checks"))
             .unionByName(tallied(each.where(has_setting), "figures")))
    for frame in bad:
        tally = tally.unionByName(frame.select("run_id", F.lit("skipped").alias("table"),
                                               F.lit(None).cast("string").alias("outcome"), F.lit(1).cast("long").alias("n"),
                                               F.lit(0).cast("long").alias("deviating"),
                                               F.concat_ws(": ", "where", "why").alias("problem")))
    found: dict[str, Counter] = {r.run_id: Counter() for r in new}
    rows: dict[str, dict[str, int]] = {r.run_id: {} for r in new}
    skipped = []
    for row in tally.collect():
        if row.table == "outcomes":
            found[row.run_id][row.outcome] += row.n
            found[row.run_id][stored_runs.DEVIATION_COUNT] += row.deviating
        elif row.table == "skipped":
            skipped.append(row.problem)
        else:
            rows[row.run_id][row.table] = row.n
    # A run whose records do not add up to its manifest's counts lost some since it was
    # stored: it is named and not landed (amqp_conformance.fixtures.core.stored_runs).
    lost = {r.run_id: stored_runs.mismatch_in_counts(r.manifest, found[r.run_id], shown(r.results.rsplit("/", 1)[0]))
            for r in new}
    lost = {run_id: why for run_id, why in lost.items() if why}
    run_cols = runs.select(*RUN_COLS).where(~F.col("run_id").isin(list(lost)))
    shaped = shape_results(records.select("run_id", "line", "r.*").drop("attachments"), run_cols)
    checks = check_text.select("run_id", "result_uuid", *[f"a.{f.name}" for f in CHECKS.fields if f.name not in KEY])
    problems = sorted([*lost.values(), *skipped])
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
                perf_figures(perf, shaped), events, problems, set(lost),
                {run_id: counts for run_id, counts in rows.items() if run_id not in lost})


def tallied(frame: DataFrame, table: str, outcome=None, deviation=None) -> DataFrame:
    """`frame`'s rows counted per run (and per outcome, when given: with how many of them
    deviate), as rows of read_runs' tally."""
    by = ["run_id"] if outcome is None else ["run_id", outcome.alias("outcome")]
    counted = frame.groupBy(*by).agg(F.count("*").alias("n"),
                                     (F.count(deviation) if deviation is not None else F.lit(0)).alias("deviating"))
    if outcome is None:
        counted = counted.withColumn("outcome", F.lit(None).cast("string"))
    return counted.select("run_id", F.lit(table).alias("table"), "outcome", F.col("n").cast("long"),
                          F.col("deviating").cast("long"), F.lit(None).cast("string").alias("problem"))


def attachment(records: DataFrame, name: str, schema: T.StructType, keys: list,
               needs: str | None = None) -> tuple[DataFrame, DataFrame]:
    """The records that carry the attachment `name`, parsed with `schema` (column `a`), and
    the ones whose attachment is no JSON (or has no `needs` field, when given), named as
    skipped input (run_id, where, why). from_json cannot tell: it gives a row of nulls for text
    that is no JSON, so the text is also read whole ($)."""
    text = F.col("r.attachments").getField(name)
    corrupt = F.get_json_object(text, "$").isNull()
    parsed = records.where(text.isNotNull()).select(*keys, F.from_json(text, schema).alias("a"), corrupt.alias("bad"))
    if needs is not None:
        parsed = parsed.withColumn("bad", F.col("bad") | F.col(f"a.{needs}").isNull())
    skipped = parsed.where("bad").select("run_id", F.concat_ws(" ", "source", F.lit(name)).alias("where"),
                                         F.lit(f"skipped, corrupt {name}").alias("why"))
    return parsed.where(~F.col("bad")).drop("bad"), skipped
