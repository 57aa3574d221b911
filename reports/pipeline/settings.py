"""The Spark session the pipeline runs in: local, a standalone master or Spark Connect,
with the defaults it sets when nobody configured them."""

from __future__ import annotations

import os

from pyspark.sql import SparkSession

from amqp_conformance.fixtures.core.polling import poll_until


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


# A task can still be running when the action that started it has returned: one of a stage
# the adaptive planner gave up (its result no longer needed). Stopping the context then made
# its result arrive at a closed thread pool, and Spark printed that RejectedExecutionException
# as an ERROR with its stack trace after a good build (1 build in 3 at 110 runs).
TASKS_SETTLE_S = 10.0


def stop_session(session: SparkSession, within_s: float = TASKS_SETTLE_S) -> None:
    """Stop the session once no task of a local executor is still running (at most within_s:
    a task that runs on past it is Spark's to cancel)."""
    jsc = getattr(session, "_jsc", None)  # None in a Spark Connect client: the server's tasks are its own
    tracker = jsc.sc().statusTracker() if jsc is not None else None  # (the Python tracker has no executors)
    if tracker is not None:
        poll_until(lambda: any(info.numRunningTasks() for info in tracker.getExecutorInfos()),
                   lambda running: not running, within=within_s, every=0.05)
    session.stop()


def _in_spark_defaults(key: str) -> bool:
    """Whether the spark-defaults.conf the launcher reads sets `key` (then it wins)."""
    conf_dir = os.environ.get("SPARK_CONF_DIR") or os.path.join(os.environ.get("SPARK_HOME", ""), "conf")
    try:
        with open(os.path.join(conf_dir, "spark-defaults.conf"), encoding="utf-8") as defaults:
            return any(line.split(None, 1)[0] == key for line in defaults if line.strip() and not line.startswith("#"))
    except OSError:
        return False
