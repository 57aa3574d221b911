"""The analyses, DataFrame API only: each case's outcome shaped for the reports, a rule's
outcome per run, the matrix, flaky rules, safety, confirm latency, PERF trends and pass rates."""

from __future__ import annotations

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from amqp_conformance.fixtures.core.outcomes import ALLURE_STATUS, PASSING
from .. import cells
from .schemas import ID_LIST, KEY, RUN_COLS, SAFETY_KINDS, record_fields


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
