"""The Spark side, one job a module: the session (settings), explicit schemas (schemas),
reading the run folders (ingest), the analyses (analyses) and the Parquet tables (store).
This package is their public face: reports/build.py and the tests import from here.

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

from .analyses import confirm_latency, flaky, matrix, pass_rates, perf_trends, rule_runs, safety
from .ingest import file_key, read_runs
from .schemas import COUNTS, RUNS
from .settings import LAUNCH_DEFAULTS, spark_session, stop_session
from .store import Tables, land, summaries

__all__ = ["confirm_latency", "flaky", "matrix", "pass_rates", "perf_trends", "rule_runs", "safety",
           "file_key", "read_runs", "COUNTS", "RUNS", "LAUNCH_DEFAULTS", "spark_session", "stop_session",
           "Tables", "land", "summaries"]
