"""The tables' schemas, explicit (nothing is inferred): a case record's, derived from
amqp_conformance.fixtures.core.outcomes.CaseResult, and those of the runs, events, checks and figures."""

from __future__ import annotations

from dataclasses import fields

from pyspark.sql import types as T

from amqp_conformance.fixtures.core.outcomes import CHECK_ATTACHMENT, HISTORY_ATTACHMENT, CaseResult
from ..landing import PERF as PERF_ATTACHMENT


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


COUNTS = ("results", "events", "checks", "figures")  # what Spark read of a run, in the runs table
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
    *[T.StructField(n, T.LongType()) for n in COUNTS],
])
RUN_IDS = T.StructType([T.StructField("run_id", T.StringType())])
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
# A record of a run: the run and the case's Allure uuid.
KEY = ["run_id", "result_uuid"]
