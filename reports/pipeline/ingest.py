"""Reading the new runs: Spark reads each results.jsonl whole, in parallel, splits it into
lines and parses each with the record's schema; the message histories, history checks and
PERF figures come out of the records' attachments."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from amqp_conformance.fixtures.core import stored_runs
from amqp_conformance.fixtures.core.outcomes import CHECK_ATTACHMENT, HISTORY_ATTACHMENT
from ..landing import PERF as PERF_ATTACHMENT
from ..landing import Run, shown
from ..storage import path_key
from .analyses import perf_figures, shape_results
from .schemas import (CHECKS, COUNTS, EVENTS, FIGURES, KEY, PARTS, RUNS, RUN_COLS, history_schema,
                      record_schema)


def file_key(column):
    """The path of a file Spark read (its _metadata.file_path, a URI with its path
    URL-encoded) as storage.path_key writes a location: no scheme, decoded."""
    bare = F.regexp_replace(column, r"^[A-Za-z][A-Za-z0-9+.-]+:(//[^/]*)?", "")
    return F.url_decode(F.regexp_replace(bare, r"\+", "%2B"))


@dataclass
class Read:
    """What Spark read of the new runs: their rows, the case tables (not yet written, each
    cached: the tables, the confirms and the checks against the histories are all drawn from
    one parse of the files), and what the driver learned of them in one job (`tally`)."""
    runs: DataFrame  # RUN_COLS of each new run that lands
    results: DataFrame  # shaped: one row per good case record
    checks: DataFrame
    figures: DataFrame  # perf_figures: one row per PERF figure
    events: DataFrame  # one row per history line, a line that is no event kept as its text (`corrupt`)
    problems: list[str]
    lost: set[str]  # runs not landed: their records do not add up to their manifests' counts
    counts: dict[str, dict[str, int]] = field(default_factory=dict)  # run -> COUNTS, of the runs that land
    corrupt_events: list[str] = field(default_factory=list)  # history lines that are no event, named


def read_runs(spark: SparkSession, new: list[Run]) -> Read:
    """Spark reads the new runs' results.jsonl, every file whole and in parallel, then
    splits each into its lines (line numbers as in the file) and parses them with the
    record's schema: nothing is read line by line on the driver. The lines, the parsed
    records and the history events are cached, and everything the driver needs to know
    before the run lands (each run's outcome counts against its manifest, the skipped
    input, each table's rows per run, the corrupt history lines) comes back in one job
    (`tally`): the files are read and parsed once for the whole landing."""
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
             .repartition("run_id", "line")
             .cache())  # both passes below read it: the files are read once
    good = (F.coalesce(F.col("r.rule"), F.lit("")) != "") & (F.coalesce(F.col("r.outcome"), F.lit("")) != "")
    # the one pass over the files' text that everything but the histories comes from
    parsed = lines.select("run_id", "results_file", "line", F.from_json("text", record_schema()).alias("r")).cache()
    records = parsed.where(good)
    bad = [parsed.where(~good).select(F.concat_ws(":", "results_file", "line").alias("where"),
                                      F.lit("skipped, corrupt JSON or no case record (no rule or outcome)").alias("why"))]
    run_cols = runs.select(*RUN_COLS)  # every new run: the lost ones are left out after the tally
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

    # The histories: their own parse of the cached lines (a history is most of a record's bytes).
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
              .join(F.broadcast(run_cols.select("run_id", *PARTS)), "run_id")
              .cache())  # written, then matched with the confirms and the checks: parsed once
    checks = checks.join(F.broadcast(run_cols.select("run_id", *PARTS)), "run_id")
    figures = perf_figures(perf, shaped)

    said = tally(parsed, bad, {"results": shaped, "checks": checks, "figures": figures}, events)
    found: dict[str, Counter] = {r.run_id: Counter() for r in new}
    for (run_id, outcome), (n, deviating) in said.outcomes.items():
        found[run_id][outcome] += n
        found[run_id][stored_runs.DEVIATION_COUNT] += deviating
    # A run whose records do not add up to its manifest's counts lost some since it was
    # stored: it is named and not landed (amqp_conformance.fixtures.core.stored_runs).
    lost = {r.run_id: stored_runs.mismatch_in_counts(r.manifest, found[r.run_id], shown(r.results.rsplit("/", 1)[0]))
            for r in new}
    lost = {run_id: why for run_id, why in lost.items() if why}
    problems = sorted([*lost.values(), *said.skipped])
    results_file = {r.run_id: shown(r.results) for r in new}
    corrupt_events = [f"{results_file[run_id]} {HISTORY_ATTACHMENT} of {result_uuid}:{line}: "
                      f"skipped a corrupt history line" for run_id, result_uuid, line in said.corrupt if run_id not in lost]
    landing = ~F.col("run_id").isin(list(lost))
    counts = {r.run_id: {c: said.rows.get((r.run_id, c), 0) for c in COUNTS} for r in new if r.run_id not in lost}
    return Read(run_cols.where(landing), shaped.where(landing), checks.where(landing), figures.where(landing),
                events.where(landing), problems, set(lost), counts, corrupt_events)


@dataclass
class Tally:
    """What the driver learns of the new runs, from one job."""
    outcomes: dict[tuple[str, str], tuple[int, int]]  # (run, outcome) -> (records, deviating ones)
    skipped: list[str]  # "where: why" of each input skipped
    rows: dict[tuple[str, str], int]  # (run, table) -> rows (COUNTS: results, events, checks, figures)
    corrupt: list[tuple[str, str, int]]  # (run, result uuid, line) of each history line that is no event


def tally(parsed: DataFrame, bad: list[DataFrame], tables: dict[str, DataFrame], events: DataFrame) -> Tally:
    """Every count and name the landing needs, as the rows of one union, collected once:
    a collect is a Spark job with its fixed cost, and the landing of a few runs is mostly
    such costs (issue 50 item 4)."""
    def row(kind: str, run_id=F.lit(None), key=F.lit(None), n=F.lit(0), more=F.lit(0)) -> list:
        return [F.lit(kind).alias("kind"), run_id.cast("string").alias("run_id"), key.cast("string").alias("key"),
                n.cast("long").alias("n"), more.cast("long").alias("more")]
    parts = [parsed.where(F.coalesce(F.col("r.outcome"), F.lit("")) != "").groupBy("run_id", "r.outcome")
             .agg(F.count("*").alias("n"), F.count("r.deviation").alias("deviating"))
             .select(*row("outcome", F.col("run_id"), F.col("outcome"), F.col("n"), F.col("deviating")))]
    parts += [frame.select(*row("skipped", key=F.concat_ws(": ", "where", "why"))) for frame in bad]
    parts += [frame.groupBy("run_id").count().select(*row("rows", F.col("run_id"), F.lit(name), F.col("count")))
              for name, frame in tables.items()]
    parts.append(events.where(F.col("corrupt").isNull()).groupBy("run_id").count()
                 .select(*row("rows", F.col("run_id"), F.lit("events"), F.col("count"))))
    parts.append(events.where(F.col("corrupt").isNotNull())
                 .select(*row("corrupt", F.col("run_id"), F.col("result_uuid"), F.col("line"))))
    union = parts[0]
    for part in parts[1:]:
        union = union.unionByName(part)
    said = Tally({}, [], {}, [])
    for got in union.collect():  # the one job
        if got.kind == "outcome":
            said.outcomes[(got.run_id, got.key)] = (got.n, got.more)
        elif got.kind == "skipped":
            said.skipped.append(got.key)
        elif got.kind == "rows":
            said.rows[(got.run_id, got.key)] = got.n
        else:
            said.corrupt.append((got.run_id, got.key, got.n))
    said.corrupt.sort()
    return said


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
