"""The build as a Spark application (reports/submit.py): through `spark-submit --master
local[2]`, with the master it was given, and on a standalone Spark cluster, a master and a
worker started here with pyspark's own launcher (bin/spark-class), bound to 127.0.0.1 with
small memory. The build code sets no master of its own: spark-submit's is the one used."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pyspark
import pytest

from amqp_conformance.reports import synthetic
from amqp_conformance.reports.pipeline import LAUNCH_DEFAULTS
from tests.integration.test_reports_pipeline import plain_matrix
from tests.suite_runs import REPO

# The work: three small runs, about 25 Spark queries in a JVM of its own (and, on the
# cluster, an executor's), with the build's launch options (pipeline.LAUNCH_DEFAULTS).
# Measured on 2 shared cores (2026-11-27): 556 s at load 22-46 with a second copy of this
# test beside it, 189 s at load 10-23 (local[2] build 84 s, master and worker 16 s, the
# build on them 83 s), 294 s at load 14-20. Before the launch options halved the build's CPU
# it never ended within its bounds (at load 14-80). Both tests run in ci/mutation (`full`).
pytestmark = [pytest.mark.spark, pytest.mark.timeout(1800)]
SPARK_HOME = Path(pyspark.__file__).resolve().parent
STARTS_WITHIN = 120  # seconds for a master or a worker to be up, or the test fails
BUILD_WITHIN = 900  # seconds for one spark-submit: under 400 at load 22-46 (above), 900 leaves room for twice that

# every JVM here lives a minute or two: the build's own launch options (pipeline.LAUNCH_DEFAULTS)
JAVA_OPTIONS = LAUNCH_DEFAULTS["spark.driver.extraJavaOptions"]


def spark_env() -> dict[str, str]:
    return {**os.environ, "SPARK_HOME": str(SPARK_HOME), "SPARK_LOCAL_IP": "127.0.0.1",
            "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable,
            "SPARK_DAEMON_MEMORY": "256m", "SPARK_DAEMON_JAVA_OPTS": JAVA_OPTIONS}


def submit(master: str, runs: Path, out: Path) -> subprocess.CompletedProcess:
    command = [str(SPARK_HOME / "bin" / "spark-submit"), "--master", master, "--driver-memory", "512m",
               "--executor-memory", "512m", "--driver-java-options", JAVA_OPTIONS,
               "--conf", f"spark.executor.extraJavaOptions={JAVA_OPTIONS}", "--conf", "spark.sql.shuffle.partitions=2",
               str(REPO / "reports" / "submit.py"), str(runs), "--out", str(out), "--no-allure"]
    return subprocess.run(command, capture_output=True, text=True, timeout=BUILD_WITHIN, env=spark_env(),
                          cwd=out.parent)


@pytest.fixture
def runs(tmp_path) -> Path:
    synthetic.generate(tmp_path / "runs", runs=3, rules=4, cases=1, fault_tests=1, events=80, versions=2)
    return tmp_path / "runs"


def built_matrix(out: Path) -> dict[tuple[str, str], tuple[str, int, int]]:
    import csv
    return {(r["broker_key"], r["rule"]): (r["latest_outcome"], int(r["runs"]), int(r["passed_runs"]))
            for r in csv.DictReader(open(out / "matrix.csv"))}


# ci/mutation only (`full`), as the standalone cluster's test below: the same build runs in
# ci/test in a local session (test_reports_pipeline.py) and through the build command
# (test_reports_end_to_end.py); what these two add is spark-submit and its master, ~95 s each.
@pytest.mark.full
def test_spark_submit_runs_the_build_with_the_master_it_was_given(runs, tmp_path):
    done = submit("local[2]", runs, tmp_path / "site")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    assert "3 runs (3 new" in done.stdout and "Spark master local[2]" in done.stdout, done.stdout
    assert built_matrix(tmp_path / "site") == plain_matrix([runs])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(log: Path, text: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + STARTS_WITHIN
    while time.monotonic() < deadline:
        if text in log.read_text(errors="replace"):
            return
        if process.poll() is not None:
            break
        time.sleep(0.5)
    pytest.fail(f"no {text!r} within {STARTS_WITHIN} s: {log.read_text(errors='replace')[-3000:]}")


@pytest.fixture
def cluster(tmp_path):
    """A standalone master and one worker (2 cores, 1 GB), stopped at the end whatever happens."""
    port, logs = free_port(), tmp_path / "cluster-logs"
    logs.mkdir()
    url = f"spark://127.0.0.1:{port}"
    spark_class = str(SPARK_HOME / "bin" / "spark-class")
    daemons = [
        ("master", [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                    "--webui-port", str(free_port())], "I have been elected leader"),
        ("worker", [spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores", "2",
                    "--memory", "1g", "--work-dir", str(tmp_path / "worker"), "--webui-port", str(free_port()), url],
         "Successfully registered with master")]
    started: list[subprocess.Popen] = []
    try:
        for name, command, ready in daemons:
            log = logs / f"{name}.log"
            with open(log, "w") as out:
                started.append(subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=spark_env(),
                                                start_new_session=True))
            wait_for(log, ready, started[-1])
        yield url
    finally:
        for process in reversed(started):
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=30)


@pytest.mark.full  # four JVMs (master, worker, driver, executor): 87 s of CPU, the most of any test ci/test ran
def test_the_build_runs_on_a_standalone_spark_cluster(runs, cluster, tmp_path):
    done = submit(cluster, runs, tmp_path / "site")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    assert f"Spark master {cluster}" in done.stdout, done.stdout
    assert built_matrix(tmp_path / "site") == plain_matrix([runs])
    executors = list((tmp_path / "worker").glob("app-*/*/stderr"))
    assert executors, "no executor ran on the worker"
