"""The Spark session the pipeline runs in: local, a standalone master or Spark Connect,
with the defaults it sets when nobody configured them."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from pyspark.sql import SparkSession

from amqp_conformance.fixtures.core.cache import cache_dir
from amqp_conformance.fixtures.core.polling import Polled, poll_until


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
JAVA_OPTIONS = "spark.driver.extraJavaOptions"
LAUNCH_DEFAULTS = {"spark.driver.memory": "2g", JAVA_OPTIONS: "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"}
# A driver JVM loads thousands of classes out of pyspark's 280 jars, each looked up jar by
# jar: in a +10 build's Java samples (JFR) class lookups in jars were the largest share. A
# class archive (the JVM's AppCDS, made once by `python -m amqp_conformance.reports
# prepare`) holds them loaded and verified: a +10 build then started in 3.5 s instead of 8.
# The JVM checks the archive against its own version and class path and, if it does not
# fit, runs without it, silently (the logging off).
QUIET_ARCHIVE = "-Xlog:cds=off -Xlog:cds+dynamic=off"  # (writing one, it names each class it leaves out)
ARCHIVE_OPTIONS = "-XX:SharedArchiveFile={} " + QUIET_ARCHIVE
DUMP_OPTIONS = "-XX:ArchiveClassesAtExit={} " + QUIET_ARCHIVE


# -- session ------------------------------------------------------------------------------
def spark_session(master: str | None = None, app: str = "amqp-conformance-reports",
                  conf: dict[str, str] | None = None, dump_classes_to: Path | None = None) -> SparkSession:
    """The session. The master is `master` when given, else whatever is configured
    (spark-submit --master, spark.master in spark-defaults.conf), else local[*]. Shuffle
    partitions, memory and the rest come from Spark's configuration (`conf` adds to it):
    nothing about the machine is written here. A JVM this launches with its own Java
    options uses the class archive (class_archive), or writes one to `dump_classes_to`
    when it exits."""
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
        if launch.get(JAVA_OPTIONS) == LAUNCH_DEFAULTS[JAVA_OPTIONS]:  # ours: the user's are left alone
            if dump_classes_to is not None:
                launch[JAVA_OPTIONS] += " " + DUMP_OPTIONS.format(dump_classes_to)
            elif (archive := class_archive()).is_file():
                launch[JAVA_OPTIONS] += " " + ARCHIVE_OPTIONS.format(archive)
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
# as an ERROR with its stack trace after a good build (2 of 3 +10 builds at 3,650 runs). The
# stop waits for the task scheduler's own count of tasks launched and not yet ended: the
# status tracker's count per executor, read here before, stays 0 on a local master.
TASKS_SETTLE_S = 10.0


def stop_session(session: SparkSession, within_s: float = TASKS_SETTLE_S) -> None:
    """Stop the session once no job is active and no task is still running (at most
    within_s: a task that runs on past it is Spark's to cancel)."""
    jsc = getattr(session, "_jsc", None)  # None in a Spark Connect client: the server's tasks are its own
    if jsc is not None:
        settled(jsc.sc(), within_s)
    session.stop()


def settled(context, within_s: float) -> Polled[tuple[int, int]]:
    """Wait (at most within_s) until a classic SparkContext has no task in flight and no
    active job; the last reading of in_flight."""
    return poll_until(lambda: in_flight(context), lambda counts: counts == (0, 0), within=within_s, every=0.05)


def in_flight(context) -> tuple[int, int]:
    """(tasks launched whose end the scheduler has not taken in, jobs still active) of a
    classic SparkContext (every cluster manager Spark ships schedules with a
    TaskSchedulerImpl); (0, 0) when it has no scheduler (stopped already: a second stop of
    one session)."""
    scheduler = context.taskScheduler()
    if scheduler is None:
        return 0, 0
    running = scheduler.runningTasksByExecutors().valuesIterator()
    tasks = 0
    while running.hasNext():
        tasks += running.next()
    return tasks, len(context.statusTracker().getActiveJobIds())


def end_jvm(within_s: float) -> bool:
    """End the JVM this process launched (its session stopped): close its gateway and its
    stdin, on which it exits, and wait for it (a JVM writing its class archive exits only
    once it is written). False if it is still running after within_s."""
    from pyspark import SparkContext
    gateway, SparkContext._gateway, SparkContext._jvm = SparkContext._gateway, None, None
    if gateway is None:
        return True
    process = getattr(gateway, "proc", None)
    gateway.shutdown()
    if process is None:  # a JVM someone else launched (spark-submit) is theirs to end
        return True
    process.stdin.close()
    try:
        process.wait(within_s)
    except subprocess.TimeoutExpired:
        return False
    return True


def class_archive() -> Path:
    """Where the class archive of this pyspark and this Java is kept (in the suite's cache,
    never the checkout). Its name changes with either, so an upgrade makes a new one."""
    import pyspark
    java = shutil.which("java", path=os.path.join(os.environ["JAVA_HOME"], "bin")) if os.environ.get("JAVA_HOME") \
        else shutil.which("java")
    java = os.path.realpath(java) if java else "no java"
    key = hashlib.sha256(f"{pyspark.__version__} {java} {_mtime(java)}".encode()).hexdigest()[:16]
    return cache_dir() / "spark-classes" / f"{key}.jsa"


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


def _in_spark_defaults(key: str) -> bool:
    """Whether the spark-defaults.conf the launcher reads sets `key` (then it wins)."""
    conf_dir = os.environ.get("SPARK_CONF_DIR") or os.path.join(os.environ.get("SPARK_HOME", ""), "conf")
    try:
        with open(os.path.join(conf_dir, "spark-defaults.conf"), encoding="utf-8") as defaults:
            return any(line.split(None, 1)[0] == key for line in defaults if line.strip() and not line.startswith("#"))
    except OSError:
        return False
