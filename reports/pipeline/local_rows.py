"""Small tables the driver holds (a build's new runs, run ids) as DataFrames made in the
JVM alone.

PySpark's createDataFrame of local rows goes through a Python RDD: the first job that
reads it starts a Python worker daemon and a worker per task (a +10 build started one
for its run rows and run ids: 3.4 s of CPU in three Python processes, for a few hundred
bytes). Here the rows travel as one JSON text in the query itself and Spark parses them
with their explicit schema (from_json), so no Python process is started and the schema
is what the table's is, field by field.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

# Timestamps travel as UTC text with microseconds, in exactly this form.
TIMESTAMP_FORMAT = "yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX"


def local_frame(spark: SparkSession, rows: list, schema: T.StructType) -> DataFrame:
    """A DataFrame of `rows` (dicts by field name, or tuples in the schema's order) with
    exactly `schema` (a value that does not fit it fails the query, never becomes null)."""
    names = [f.name for f in schema.fields]
    records = [row if isinstance(row, dict) else dict(zip(names, row)) for row in rows]
    text = json.dumps([{name: record.get(name) for name in names} for record in records], default=_json_value)
    parsed = F.from_json(F.lit(text), T.ArrayType(schema), {"timestampFormat": TIMESTAMP_FORMAT, "mode": "FAILFAST"})
    return spark.range(1).select(F.explode(parsed).alias("row")).select(*[F.col("row")[n].alias(n) for n in names])


def _json_value(value):
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    raise TypeError(f"no JSON form for {type(value).__name__}")
