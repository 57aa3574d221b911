"""The report pipeline's transforms on small hand-made runs, on one shared SparkSession."""

from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path

import pytest

from pyspark.sql import Row
from pyspark.testing import assertDataFrameEqual

from amqp_conformance.fixtures.core.outcomes import CaseResult, allure_history_id
from amqp_conformance.reports import allure_report, cells, landing, pipeline, site, storage, synthetic
from amqp_conformance.reports.build import build

# Spark starts a JVM and compiles its first queries: on a loaded 2-core machine that alone
# can pass the suite-wide 60 s backstop.
# A net for a hang: the incremental test takes ~2 min on a quiet CI machine and ran 862 s
# at load 10-21, where a Spark JVM gets a fraction of a core.
pytestmark = [pytest.mark.spark, pytest.mark.timeout(1200)]


# The tests' runs are a few dozen rows, so Spark's code generation (a Java class compiled,
# then JIT-compiled, for every query) is most of their CPU: with both settings below three
# builds of four synthetic runs took 90-99 s of the JVM's CPU instead of 127-142 s, each
# build 19-21 s instead of 25-35 s (2026-11-29, quiet). The interpreted operators compute
# the same rows; the build command, and so test_reports_end_to_end.py, keeps Spark's
# defaults (at a hundred runs each setting alone saved no time: docs/measurements.md).
INTERPRETED = {"spark.sql.codegen.wholeStage": "false", "spark.sql.codegen.factoryMode": "NO_CODEGEN"}


@pytest.fixture(scope="session")
def spark():
    if shutil.which("java") is None:
        pytest.fail("java is missing: ci/setup installs OpenJDK 17 for Spark")
    session = pipeline.spark_session("local[2]", conf={"spark.sql.shuffle.partitions": "4", **INTERPRETED})
    yield session
    pipeline.stop_session(session)


# -- small runs, written the way ci/suite stores them -------------------------------------
def make_run(root: Path, run_id: str, broker: str, version: str, started: str, cases: list[dict]) -> Path:
    """A run folder as the run store writes it: results.jsonl (one case record a line,
    amqp_conformance.fixtures.core.outcomes.CaseResult) and the manifest."""
    run = root / run_id
    run.mkdir(parents=True)
    lines = []
    for i, case in enumerate(cases):
        full_name = f"conformance.x.test_{case['rule'].lower()}#test"
        parameters = case.get("parameters", {})
        record = CaseResult(case["rule"], case.get("name", case["rule"]), case["outcome"], start=1.0, stop=2.0,
                            evidence=case.get("message", ""), parameters=parameters,
                            attachments=case.get("attachments", {}),
                            allure={"uuid": f"{run_id}-{i}", "full_name": full_name,
                                    "history_id": allure_history_id(None, full_name, list(parameters.items()))})
        lines.append(json.dumps(record.as_dict()) + "\n")
    (run / "results.jsonl").write_text("".join(lines))
    manifest = {"run_id": run_id, "broker": broker, "broker_version": version, "started_at": started,
                "ended_at": started, "outcomes": {}, "results": "results.jsonl"}
    (run / "manifest.json").write_text(json.dumps(manifest))
    return run


def load_shaped(spark, root: Path, tmp: Path, **kwargs):
    """Spark reads the runs (nothing written): what it read, its tables, the shaped results."""
    read = pipeline.read_runs(spark, landing.plan(landing.discover([root]), **kwargs).new)
    tables = {"checks": read.checks, "events": read.events.where("corrupt IS NULL")}
    return read, tables, read.results


@pytest.fixture
def three_rabbit_runs(tmp_path):
    root = tmp_path / "runs"
    for n, x_outcome in enumerate(["pass", "fail", "pass"]):
        make_run(root, f"r{n}", "RabbitMQ", "3.10.8", f"2026-11-0{n + 1}T10:00:00+00:00", [
            {"rule": "ACK-03", "outcome": x_outcome},
            {"rule": "PC-06", "outcome": "non-strict", "name": "a"},
            {"rule": "PC-06", "outcome": "pass", "name": "b"},
            {"rule": "CON-10", "outcome": "unsupported", "name": "per-queue"},
            {"rule": "CON-10", "outcome": "pass", "name": "global"},
        ])
    make_run(root, "g0", "garagemq", "0.1", "2026-11-02T10:00:00+00:00", [
        {"rule": "ACK-03", "outcome": "fail", "message": "expected: x\nactual: y"},
        {"rule": "TX-01", "outcome": "unsupported"},
        {"rule": "CON-10", "outcome": "error", "name": "a"},
        {"rule": "CON-10", "outcome": "pass", "name": "b"},
        {"rule": "QOS-01", "outcome": "info", "name": "a"},
        {"rule": "QOS-01", "outcome": "unsupported", "name": "b"},
    ])
    return root


def test_matrix_has_latest_outcome_and_pass_rate(spark, three_rabbit_runs, tmp_path):
    _, _, shaped = load_shaped(spark, three_rabbit_runs, tmp_path)
    matrix = pipeline.matrix(pipeline.rule_runs(shaped)).select(
        "broker_key", "rule", "latest_outcome", "latest_run", "runs", "passed_runs", "pass_rate")
    assertDataFrameEqual(matrix, [
        Row(broker_key="RabbitMQ 3.10.8", rule="ACK-03", latest_outcome="pass", latest_run="r2", runs=3,
            passed_runs=2, pass_rate=0.6667),
        # a non-strict case of two makes the rule non-strict in a run
        Row(broker_key="RabbitMQ 3.10.8", rule="PC-06", latest_outcome="non-strict", latest_run="r2", runs=3,
            passed_runs=0, pass_rate=0.0),
        # one way passes, one cannot run: the rule is checked, and passes (amqp_conformance.reports.cells)
        Row(broker_key="RabbitMQ 3.10.8", rule="CON-10", latest_outcome="pass", latest_run="r2", runs=3,
            passed_runs=3, pass_rate=1.0),
        Row(broker_key="garagemq 0.1", rule="ACK-03", latest_outcome="fail", latest_run="g0", runs=1,
            passed_runs=0, pass_rate=0.0),
        # an errored case reads fail
        Row(broker_key="garagemq 0.1", rule="CON-10", latest_outcome="fail", latest_run="g0", runs=1,
            passed_runs=0, pass_rate=0.0),
        # a figure beats a case that could not run
        Row(broker_key="garagemq 0.1", rule="QOS-01", latest_outcome="info", latest_run="g0", runs=1,
            passed_runs=1, pass_rate=1.0),
        Row(broker_key="garagemq 0.1", rule="TX-01", latest_outcome="unsupported", latest_run="g0", runs=1,
            passed_runs=0, pass_rate=0.0),
    ])


def test_flaky_rules_are_the_mixed_ones_with_their_flip_rate(spark, three_rabbit_runs, tmp_path):
    _, _, shaped = load_shaped(spark, three_rabbit_runs, tmp_path)
    assertDataFrameEqual(pipeline.flaky(pipeline.rule_runs(shaped)), [
        Row(broker_key="RabbitMQ 3.10.8", rule="ACK-03", runs=3, outcomes=["fail", "pass"], flips=2,
            flip_rate=1.0)])


def test_safety_and_confirm_latency_from_a_fault_history(spark, tmp_path):
    history = [
        {"t": 10.0, "kind": "fault", "name": "latency", "phase": "applied", "detail": "+50ms"},
        {"t": 10.0, "kind": "publish", "seq": 1, "message_id": "m1", "channel": 1},
        {"t": 10.1, "kind": "publish", "seq": 2, "message_id": "m2", "channel": 1},
        {"t": 10.2, "kind": "publish", "seq": 3, "message_id": "m3", "channel": 1},
        {"t": 10.25, "kind": "confirm", "seq": 2, "multiple": True, "ack": True},   # covers 1 and 2
        {"t": 10.5, "kind": "confirm", "seq": 3, "multiple": False, "ack": True},
        {"t": 10.6, "kind": "deliver", "message_id": "m2", "delivery_tag": 1, "redelivered": False,
         "consumer": "c", "channel": 2},
        {"t": 10.7, "kind": "deliver", "message_id": "m2", "delivery_tag": 2, "redelivered": False,
         "consumer": "c", "channel": 2},
        {"t": 10.8, "kind": "deliver", "message_id": "m9", "delivery_tag": 3, "redelivered": False,
         "consumer": "c", "channel": 2},
    ]
    check = {"fault": "latency", "queue_type": "quorum", "published": 3, "confirmed": 3, "delivered": 2,
             "lost": ["m1", "m3"], "unexpected": [], "duplicated": ["m2"], "recovered": [],
             "unflagged_redeliveries": ["m2"], "double_resolutions": [], "watermark_violations": [],
             "detection_latency_s": 0.4}
    root = tmp_path / "runs"
    make_run(root, "f0", "RabbitMQ", "3.10.8", "2026-11-01T10:00:00+00:00", [
        {"rule": "FLT-01", "outcome": "fail", "attachments": {
            "message-history.jsonl": "".join(json.dumps(e) + "\n" for e in history),
            "history-check.json": json.dumps(check)}}])
    _, tables, shaped = load_shaped(spark, root, tmp_path)
    assert (tables["events"].count(), tables["checks"].count()) == (len(history), 1)
    safety = pipeline.safety(tables["checks"], shaped, tables["events"]).select(
        "broker_key", "fault", "lost", "duplicated", "unflagged_redeliveries", "unexpected", "violations",
        "lost_seen", "duplicated_seen", "unflagged_seen", "unexpected_seen")
    # The history itself shows m9 delivered but never published; this check missed it.
    assertDataFrameEqual(safety, [Row(broker_key="RabbitMQ 3.10.8", fault="latency", lost=2, duplicated=1,
                                      unflagged_redeliveries=1, unexpected=0, violations=4, lost_seen=2,
                                      duplicated_seen=1, unflagged_seen=1, unexpected_seen=1)])
    latency = pipeline.confirm_latency(tables["events"], tables["checks"], shaped)
    # latencies 250, 150, 300 ms: exact percentiles with linear interpolation
    assertDataFrameEqual(latency, [Row(broker_key="RabbitMQ 3.10.8", fault="latency", confirms=3, p50_ms=250.0,
                                       p90_ms=290.0, p99_ms=299.0, max_ms=300.0)], atol=0.01)


def test_history_id_is_the_key_allure_uses(spark, tmp_path):
    """The key a record carries (the Allure sink's, amqp_conformance.fixtures.core.outcomes.allure_history_id) is
    Allure 3's key of the result file it wrote (amqp_conformance.reports.allure_report.history_id), and the
    pipeline takes it from the record as it is."""
    params = [{"name": "method", "value": "'nack'"}, {"name": "lose", "value": "'lose_cleanly'"},
              {"name": "reply", "value": "'channel.close 406'", "excluded": True}]
    result_file = {"uuid": "u1", "fullName": "conformance.x#test", "testCaseId": "4376841140f780e4",
                   "parameters": params}
    kept = [(p["name"], p["value"]) for p in params if not p.get("excluded")]
    assert allure_history_id("4376841140f780e4", "conformance.x#test", kept) == allure_report.history_id(result_file)
    assert allure_history_id(None, "conformance.x#test", []) == allure_report.history_id(
        {"uuid": "u2", "fullName": "conformance.x#test"})
    root = tmp_path / "runs"
    run = make_run(root, "h0", "RabbitMQ", "3.10.8", "2026-11-01T10:00:00+00:00",
                   [{"rule": "ACK-03", "outcome": "pass", "parameters": dict(kept)},
                    {"rule": "ACK-04", "outcome": "pass"}])
    _, _, shaped = load_shaped(spark, root, tmp_path)
    expected = [Row(uuid=r["allure"]["uuid"], history_id=r["allure"]["history_id"])
                for r in map(json.loads, (run / "results.jsonl").read_text().splitlines())]
    assertDataFrameEqual(shaped.select("uuid", "history_id"), expected)


def test_bad_input_is_named_and_skipped_and_nothing_else_is_lost(spark, three_rabbit_runs, tmp_path):
    root = three_rabbit_runs
    half = root / "half-written"
    half.mkdir(parents=True)
    (half / "results.jsonl").write_text('{"rule": "ACK-03", "outcome": "pass"}\n')
    corrupt = make_run(root, "corrupt-manifest", "RabbitMQ", "3.10.8", "2026-11-05T10:00:00+00:00",
                       [{"rule": "ACK-03", "outcome": "pass"}])
    (corrupt / "manifest.json").write_text('{"run_id": "corrupt-manifest", "broker": ')
    make_run(root, "mystery", "MysteryMQ", "9.9", "2026-11-05T10:00:00+00:00", [{"rule": "ACK-03", "outcome": "pass"}])
    stopped = make_run(root, "stopped", "RabbitMQ", "3.10.8", "2026-11-07T10:00:00+00:00",
                       [{"rule": "ACK-03", "outcome": "fail"}])
    manifest = json.loads((stopped / "manifest.json").read_text())
    manifest.update(interrupted="SIGTERM", exit_status=143, outcomes={"fail": 1})
    (stopped / "manifest.json").write_text(json.dumps(manifest))
    bad_file = root / "r1" / "results.jsonl"
    records = bad_file.read_text().splitlines()
    bad_file.write_text("\n".join(['{"rule": "ACK-03", "outcome": ', *records[1:]]) + "\n")
    history_run = make_run(root, "hist", "garagemq", "0.1", "2026-11-06T10:00:00+00:00", [
        {"rule": "FLT-01", "outcome": "pass", "attachments": {
            "message-history.jsonl": '{"t": 1.0, "kind": "publish", "seq": 1}\n{"t": 1.1, "kind": "conf\n'}},
        # attachments cut short: the case is kept, the attachment named and skipped
        {"rule": "FLT-02", "outcome": "pass", "attachments": {"history-check.json": '{"fault": "latency", "lost": ['}},
        {"rule": "PERF-01", "outcome": "pass", "attachments": {"perf-figures.json": '{"rule": "PERF-01"}'}}])
    plan = landing.plan(landing.discover([root]))
    tables = pipeline.Tables(spark, (tmp_path / "data").as_uri(), storage.Store(spark))
    landed, skipped = pipeline.land(spark, tables, plan.new)
    problems = "\n".join(plan.problems + skipped)
    assert "half-written: no manifest.json" in problems and str(half) in problems
    assert f"{corrupt / 'manifest.json'}: skipped the run, corrupt JSON" in problems
    assert "unknown broker 'MysteryMQ'" in problems
    assert f"{bad_file}:1: skipped, corrupt JSON" in problems
    assert f"{history_run.name}" in problems and ":2: skipped a corrupt history line" in problems
    assert f"{stopped}: interrupted by SIGTERM after 1 cases (exit status 143): not counted" in problems
    records_of = history_run / "results.jsonl"
    assert f"{records_of}:2 history-check.json: skipped, corrupt history-check.json" in problems
    assert f"{records_of}:3 perf-figures.json: skipped, corrupt perf-figures.json" in problems
    assert len(plan.problems + skipped) == 8
    # everything else is kept: 5 + 5 + 5 - 1 corrupt rabbit results, 6 garagemq, 3 of the history run
    assert sum(r["results"] for r in landed) == tables.read("results").count() == 5 + 5 + 5 - 1 + 6 + 3
    assert sum(r["checks"] for r in landed) == sum(r["figures"] for r in landed) == 0
    assert sum(r["events"] for r in landed) == tables.read("events").where("corrupt IS NULL").count() == 1
    assert sorted(r.run_id for r in tables.read("runs").collect()) == ["g0", "hist", "r0", "r1", "r2"]
    # an unknown broker is accepted once named
    again = landing.plan(landing.discover([root]), known_brokers={"MysteryMQ"})
    assert "mystery" in {r.run_id for r in again.new} and not any("MysteryMQ" in p for p in again.problems)


def test_build_writes_tables_and_the_matrix_page_from_synthetic_runs(spark, tmp_path):
    totals = synthetic.generate(tmp_path / "runs", runs=4, rules=6, cases=1, fault_tests=1, events=200,
                                anomalies=1.0)  # every fault test loses some: the safety table must show it
    summary = build([tmp_path / "runs"], tmp_path / "site", allure=False, spark=spark)
    assert (summary["runs"], summary["results"], summary["events"]) == (totals["runs"], totals["results"],
                                                                         totals["events"])
    for table in ("runs", "results", "events", "checks"):
        assert list((tmp_path / "site" / "data" / table).rglob("*.parquet")), table  # partitioned
    page = (tmp_path / "site" / "index.html").read_text()
    assert all(f"data-rule='{r}'" in page for r in ("ACK-01", "RQ-01", "PC-01", "FT-01"))
    assert "<svg id=chart-outcomes-per-broker" in page and "<svg id=chart-pass-rate" in page
    assert page.count("class=point") == len(summary["pass_rates"])  # one pass-rate point per version and week
    table = (tmp_path / "site" / "matrix.md").read_text().splitlines()
    assert table[0] == "| rule | LavinMQ 2.3.0 | RabbitMQ 3.10.8 | RabbitMQ 4.1.0 | garagemq 0.1 |"
    assert len(table) == 2 + len({row["rule"] for row in summary["matrix"]} | set(cells.catalogue()))
    for row in summary["safety"]:  # the generator's checks report exactly what it injected
        assert (row["lost"], row["duplicated"], row["unflagged_redeliveries"], row["unexpected"]) == (
            row["lost_seen"], row["duplicated_seen"], row["unflagged_seen"], row["unexpected_seen"]), row
    assert any(row["lost"] for row in summary["safety"])
    assert {row["broker_key"] for row in summary["latency"]} == {"RabbitMQ 3.10.8", "RabbitMQ 4.1.0",
                                                                  "garagemq 0.1", "LavinMQ 2.3.0"}


def test_the_markdown_matrix_lists_each_outcome_of_the_latest_run():
    matrix = [
        {"broker_key": "garagemq 0.1", "rule": "CON-02", "latest_outcome": "unsupported",
         "latest_outcomes": ["pass", "unsupported"], "latest_changed": False},
        {"broker_key": "garagemq 0.1", "rule": "ACK-10", "latest_outcome": "fail", "latest_outcomes": ["fail"],
         "latest_changed": True},
        {"broker_key": "RabbitMQ 3.10.8", "rule": "ACK-10", "latest_outcome": "pass", "latest_outcomes": ["pass"] * 5},
    ]
    assert site.markdown(matrix, catalogue={}).splitlines() == [
        "| rule | RabbitMQ 3.10.8 | garagemq 0.1 |", "|---|---|---|",
        "| ACK-10 | pass | fail * |", "| CON-02 | – | pass · 1 of 2 unsupported |"]
    # Every catalogued rule has a row, as on the page: one no run ran says so.
    rows = site.markdown(matrix, catalogue={"ACK-10": "not run", "PERF-01": "not run (-m perf)"}).splitlines()
    assert rows[2:] == ["| ACK-10 | pass | fail * |", "| CON-02 | – | pass · 1 of 2 unsupported |",
                        "| PERF-01 | not run (-m perf) | not run (-m perf) |"]
    assert len(site.markdown(matrix).splitlines()) == 2 + len(cells.catalogue())  # the catalogue's index by default


@pytest.mark.parametrize("outcomes, cell", [
    (["pass", "pass", "unsupported", "unsupported", "unsupported", "unsupported"], "pass · 4 of 6 unsupported"),
    (["fail", "pass"], "fail · 1 of 2 pass"),
    (["error", "non-strict"], "fail · 1 of 2 error, 1 of 2 non-strict"),
    (["non-strict", "pass", "unsupported"], "non-strict · 1 of 3 pass, 1 of 3 unsupported"),
    (["info", "unsupported"], "info · 1 of 2 unsupported"),
    (["unsupported", "skipped"], "unsupported · 1 of 2 skipped"),
    (["pass"] * 3, "pass"),
])
def test_a_rule_s_cell_is_decided_by_precedence_and_shows_the_mix(outcomes, cell):
    from amqp_conformance.reports import cells
    assert cells.mix(outcomes) == cell
    assert cells.rule_outcome(outcomes) == cell.split(" · ")[0]


def test_differences_are_the_cases_of_rules_run_on_both_whose_outcome_differs():
    """Aligned by case (CON-10: its per-queue ways unsupported on one version, all pass on
    the other, are listed one by one); a case run on one side only is not compared."""
    from amqp_conformance.reports import cells
    link = lambda name, outcome: {"name": name, "outcome": outcome, "report_id": f"id-{name}-{outcome}"}
    row = lambda broker, rule, *links: {"broker_key": broker, "rule": rule, "latest_run": f"run-{broker}",
                                        "latest_case_links": list(links)}
    matrix = [row("A 1", "ACK-01", link("ACK-01", "pass")), row("B 2", "ACK-01", link("ACK-01", "pass")),
              row("A 1", "CON-10", link("CON-10[a]", "pass"), link("CON-10[b]", "pass")),
              row("B 2", "CON-10", link("CON-10[a]", "pass"), link("CON-10[b]", "unsupported")),
              row("A 1", "ACK-02", link("ACK-02", "fail")), row("B 2", "ACK-02", link("ACK-02", "pass"),
                                                                   link("ACK-02[new]", "pass")),
              row("A 1", "TX-01", link("TX-01", "unsupported"))]
    found = cells.version_differences(matrix, "A 1", "B 2")
    # ACK-02[new] ran on B only: no difference
    assert [(d.case, d.a["outcome"], d.b["outcome"]) for d in found] == [
        ("ACK-02", "fail", "pass"), ("CON-10[b]", "pass", "unsupported")]
    assert found[0].a["run"] == "run-A 1" and found[0].b["report_id"] == "id-ACK-02-pass"
    assert cells.differing_rules(matrix) == {"ACK-02", "CON-10"}
    assert cells.count_text(len(found)) == "2 cases differ"
    assert cells.broker_named(["A 1", "B 2"], "b") == "B 2"


# -- incremental: a run lands once, and the summaries are those of a full build ------------
def table_rows(spark, data: Path, name: str) -> list[tuple]:
    """A table's rows, in a stable order, whatever files hold them."""
    frame = spark.read.parquet(str(data / name))
    return sorted(tuple(json.dumps(v, sort_keys=True, default=str) for v in row.asDict(recursive=True).values())
                  for row in frame.select(*sorted(frame.columns)).collect())


def folder_state(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(root.rglob("*"))}


def plain_matrix(roots: list[Path]) -> dict[tuple[str, str], tuple[str, int, int]]:
    """The matrix counted in plain Python from the run folders: per broker version and
    rule, its latest outcome (amqp_conformance.reports.cells), runs and passing runs."""
    per_rule: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
    for run in (d for root in roots for d in sorted(root.iterdir())):
        manifest = json.loads((run / "manifest.json").read_text())
        key = f"{manifest['broker']} {manifest['broker_version']}"
        outcomes: dict[str, list[str]] = {}
        for record in map(json.loads, (run / "results.jsonl").read_text().splitlines()):
            outcomes.setdefault(record["rule"], []).append(record["outcome"])
        for rule, seen in outcomes.items():
            per_rule.setdefault((key, rule), []).append((manifest["started_at"], run.name, cells.rule_outcome(seen)))
    return {k: (max(v)[2], len(v), sum(o in ("pass", "info") for _, _, o in v)) for k, v in per_rule.items()}


def test_a_second_build_lands_only_the_new_runs_and_counts_them_all(spark, tmp_path):
    """ci/test's share of the incremental build (the whole, below, is ci/mutation's): two
    builds, the second reading only the runs stored since the first, and the matrix they
    leave counted from every run folder."""
    first, later = tmp_path / "first", tmp_path / "later"
    synthetic.generate(first, runs=3, rules=3, cases=1, fault_tests=1, events=60, versions=2)
    synthetic.generate(later, runs=1, rules=3, cases=1, fault_tests=1, events=60, versions=2, first=3)
    stored = folder_state(first) | folder_state(later)
    site = tmp_path / "site"
    one = build([first], site, allure=False, spark=spark)
    assert (one["runs"], one["new_runs"]) == (3, 3)
    two = build([first, later], site, allure=False, spark=spark)
    assert (two["runs"], two["new_runs"]) == (4, 1)
    assert folder_state(first) | folder_state(later) == stored  # run folders untouched
    assert {(r["broker_key"], r["rule"]): (r["latest_outcome"], r["runs"], r["passed_runs"])
            for r in two["matrix"]} == plain_matrix([first, later])


# Five builds: about 200 s on a loaded 2-core CI machine, so ci/mutation runs it whole.
@pytest.mark.full
def test_an_incremental_build_lands_each_run_once_and_equals_a_full_build(spark, tmp_path):
    first, later = tmp_path / "first", tmp_path / "later"
    synthetic.generate(first, runs=4, rules=5, cases=2, fault_tests=1, events=120, versions=2, anomalies=0.5)
    synthetic.generate(later, runs=2, rules=5, cases=2, fault_tests=1, events=120, versions=2, anomalies=0.5,
                       first=4)
    stored = folder_state(first) | folder_state(later)
    site = tmp_path / "site"
    one = build([first], site, allure=False, spark=spark)
    assert (one["runs"], one["new_runs"]) == (4, 4)
    data = site / "data"
    shutil.rmtree(data / "latencies")  # as landed before the latencies table: the next build makes it
    two = build([first, later], site, allure=False, spark=spark)  # the first four are not read again
    assert (two["runs"], two["new_runs"]) == (6, 2)
    before = folder_state(data)
    again = build([first, later], site, allure=False, spark=spark)
    assert again["new_runs"] == 0 and folder_state(data) == before  # re-landing is a no-op
    assert folder_state(first) | folder_state(later) == stored  # run folders untouched
    latencies = table_rows(spark, data, "latencies")
    assert latencies and two["latency"]
    shutil.rmtree(data / "latencies")  # the same with no new run to land
    older = build([first, later], site, allure=False, spark=spark)
    assert sorted(map(repr, older["latency"])) == sorted(map(repr, two["latency"]))
    assert table_rows(spark, data, "latencies") == latencies
    whole = build([first, later], tmp_path / "full", allure=False, spark=spark, full=True)
    for name in ("matrix", "flaky", "safety", "latency", "pass_rates", "perf"):
        assert sorted(map(repr, two[name])) == sorted(map(repr, whole[name])), name
    for name in ("runs", "results", "events", "checks", "confirms", "latencies", "rule_runs", "run_outcomes",
                 "fault_checks"):
        assert table_rows(spark, data, name) == table_rows(spark, tmp_path / "full" / "data", name), name
    # partitioned by broker version and date: one folder per night and version
    assert len(list((data / "results").glob("broker_dir=*/date=*"))) == 6
    # and both equal the counts made in plain Python from the run folders
    expected = plain_matrix([first, later])
    assert {(r["broker_key"], r["rule"]): (r["latest_outcome"], r["runs"], r["passed_runs"])
            for r in whole["matrix"]} == expected
    assert whole["results"] == sum(len((d / "results.jsonl").read_text().splitlines())
                                   for root in (first, later) for d in root.iterdir())
    assert not (site / "work").exists()  # no staging copy in the site


def test_pass_rates_cover_the_window(spark, tmp_path):
    runs = synthetic.generate(tmp_path / "runs", runs=6, rules=3, cases=1, fault_tests=0, versions=2)
    summary = build([tmp_path / "runs"], tmp_path / "site", allure=False, spark=spark, window=("runs", 2))
    assert runs["runs"] == 6 and summary["window"] == "the last 2 runs of each broker version"
    assert {r["runs"] for r in summary["matrix"]} == {2}
    days = build([tmp_path / "runs"], tmp_path / "site", allure=False, spark=spark, window=("days", 1))
    assert {r["runs"] for r in days["matrix"]} == {1} and days["window"] == "the last 1 day of each broker version"


def test_the_driver_s_small_tables_reach_spark_exactly_as_held(spark):
    # pipeline/local_rows: the new runs' rows and run ids travel as JSON inside the query
    # (no Python worker); every type of the runs table must arrive as the driver held it.
    from datetime import datetime, timezone
    from amqp_conformance.reports.pipeline.local_rows import local_frame
    from amqp_conformance.reports.pipeline.schemas import RUN_IDS, RUNS
    started = datetime(2026, 11, 30, 6, 32, 15, 123456, tzinfo=timezone.utc)
    row = {name: None for name in RUNS.fieldNames()}
    row.update(run_id="r1", broker="RabbitMQ", broker_version="4.0.5", duration_s=12, exit_status=0,
               outcomes={"pass": 3, "fail": 1}, run_started=started, date="2026-11-30", results=4, options='{"a": "\\"b"}')
    [got] = [r.asDict() for r in local_frame(spark, [row], RUNS).collect()]
    assert local_frame(spark, [row], RUNS).schema == RUNS
    assert {**got, "run_started": got["run_started"].astimezone(timezone.utc)} == {**row, "duration_s": 12.0}
    assert [r.run_id for r in local_frame(spark, [("a",), ("b",)], RUN_IDS).collect()] == ["a", "b"]
    assert local_frame(spark, [], RUN_IDS).count() == 0


def test_a_build_s_jvm_uses_the_class_archive_when_this_machine_has_one(spark):
    from amqp_conformance.reports.pipeline import settings
    archive = settings.class_archive()
    if not archive.is_file():
        pytest.skip(f"no class archive on this machine ({archive}): `python -m amqp_conformance.reports prepare` "
                    "makes it")
    arguments = list(spark.sparkContext._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean()
                     .getInputArguments())
    assert f"-XX:SharedArchiveFile={archive}" in arguments


def test_the_stop_reads_the_tasks_a_session_is_still_running(spark):
    """stop_session waits on this reading: a real session's running tasks and active job
    while a query runs (the status tracker's count per executor, read before, stayed 0 on
    a local master, so the stop never waited), and (0, 0) once it is over."""
    from amqp_conformance.reports.pipeline.settings import in_flight, settled
    context = spark.sparkContext._jsc.sc()
    query = threading.Thread(target=lambda: spark.sql(
        "select sum(crc32(cast(id as string))) from range(0, 3000000, 1, 2)").collect())  # seconds of two tasks
    query.start()
    seen = set()
    while query.is_alive():
        seen.add(in_flight(context))
        time.sleep(0.02)
    assert any(tasks and jobs for tasks, jobs in seen), f"readings while the query ran: {sorted(seen)}"
    after = settled(context, within_s=30)
    assert after.held, f"still in flight 30 s after the query: {after.value}"
