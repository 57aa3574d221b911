"""The PERF figures in the report pipeline: hand-made runs whose PERF cases carry the
attachment amqp_conformance.fixtures.vocabulary.perf writes become the perf table with trends and the ratio to
PerfTest, the matrix page's two charts, perf.md and charts/*.svg; runs without figures
draw no chart at all. Also PerfTest's output as the instruments read it."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ElementTree

import pytest

from amqp_conformance.fixtures.vocabulary.perf import (FIGURES_ATTACHMENT, PERFTEST, Figure, figures_json,
                                                       ratio, steady_rate)
from amqp_conformance.reports import landing, pipeline, synthetic
from amqp_conformance.reports.build import build
from tests.integration.test_reports_pipeline import (make_run, spark)  # noqa: F401 - the shared SparkSession fixture

pytestmark = [pytest.mark.spark, pytest.mark.timeout(300)]

MODES = ("no confirms", "tx per message", "confirm per message", "asynchronous confirm")
PREFETCH = ("prefetch 1", "prefetch 100", "prefetch 300", "automatic ack")


def figure(setting: str, runs: list[float], instrument: str = "ours", loads: float = 1.5, **kwargs) -> Figure:
    return Figure(setting, "msg/s", instrument, runs=list(runs), loads=[loads] * len(runs), **kwargs)


def perf_case(rule_id: str, case: str, figures: list[Figure], outcome: str = "info") -> dict:
    return {"rule": rule_id, "outcome": outcome, "name": f"test_{rule_id}[{case}]",
            "attachments": {FIGURES_ATTACHMENT: figures_json(rule_id, case, figures)}}


def publisher(scale: float, no_tx: str | None = None) -> list[Figure]:
    """PERF-01 (transient): our four modes, one ratio and PerfTest's async confirm."""
    ours = [figure(m, [scale * (i + 1) * 1000 * k for k in (0.9, 1.0, 1.1)]) for i, m in enumerate(MODES)]
    if no_tx:
        ours[1] = Figure("tx per message", "msg/s", unsupported=no_tx)
    return [*ours, ratio("asynchronous confirm / tx per message", ours[3], ours[1], "about 250x"),
            figure("asynchronous confirm", [2000.0, 2500.0, 3000.0], PERFTEST)]


def consumer(scale: float) -> list[Figure]:
    return [figure(s, [scale * 10 ** (i + 2)] * 3, claim="the fastest" if s == "automatic ack" else None)
            for i, s in enumerate(PREFETCH)]


@pytest.fixture(scope="module")
def perf_runs(tmp_path_factory):
    """RabbitMQ: two runs with figures (the second twice as fast), one run after them without
    any PERF case; garagemq: one run, without transactions, and no PerfTest."""
    root = tmp_path_factory.mktemp("perf") / "runs"
    for n, scale in enumerate((1.0, 2.0)):
        make_run(root, f"r{n}", "RabbitMQ", "3.10.8", f"2026-11-0{n + 1}T10:00:00+00:00", [
            perf_case("PERF-01", "transient", publisher(scale)),
            perf_case("PERF-02", "direct", consumer(scale)),
            perf_case("PERF-02", "latency 20 ms", consumer(scale / 10)),
            {"rule": "ACK-01", "outcome": "pass"}])
    make_run(root, "r2", "RabbitMQ", "3.10.8", "2026-11-03T10:00:00+00:00", [{"rule": "ACK-01", "outcome": "pass"}])
    garage = publisher(0.5, no_tx="probe: tx.select answered with connection.close 540")
    make_run(root, "g0", "garagemq", "0.1", "2026-11-02T10:00:00+00:00", [
        perf_case("PERF-01", "transient", [f for f in garage if f.instrument != PERFTEST])])
    return root


@pytest.fixture(scope="module")
def perf_built(spark, perf_runs):  # noqa: F811 - spark is the shared fixture imported above
    """One build of perf_runs (its summary and site), which the table's and the charts'
    tests both read: a Spark build is most of each test's time."""
    site = perf_runs.parent / "site"
    return build([perf_runs], site, allure=False, spark=spark), site


def by_key(rows: list[dict]) -> dict[tuple, dict]:
    return {(r["broker_key"], r["rule"], r["case"], r["instrument"], r["setting"]): r for r in rows}


def test_perf_figures_become_a_table_with_trends_and_the_ratio_to_perftest(perf_built):
    summary, site = perf_built
    rows = by_key(summary["perf"])
    # 2 RabbitMQ x (5 ours + 1 PerfTest) PERF-01 figures, 2 x 4 PERF-02; garagemq 5
    assert summary["figures"] == 2 * (6 + 8) + 5
    fast = rows[("RabbitMQ 3.10.8", "PERF-01", "transient", "ours", "asynchronous confirm")]
    assert (fast["median"], fast["min"], fast["max"]) == (8000.0, 7200.0, 8800.0)
    assert fast["latest_run"] == "r1" and fast["runs"] == 2  # r2 measured nothing: it is no point of the trend
    assert fast["trend"] == [4000.0, 8000.0] and fast["previous"] == 4000.0 and fast["change"] == 1.0
    assert fast["perftest_median"] == 2500.0 and fast["to_perftest"] == 3.2  # the same run's PerfTest
    assert fast["load"] == 1.5 and fast["repetitions"] == 3 and fast["claim"] is None
    theirs = rows[("RabbitMQ 3.10.8", "PERF-01", "transient", PERFTEST, "asynchronous confirm")]
    assert theirs["median"] == 2500.0 and theirs["to_perftest"] is None
    guide = rows[("RabbitMQ 3.10.8", "PERF-01", "transient", "ours", "asynchronous confirm / tx per message")]
    assert (guide["unit"], guide["median"], guide["claim"]) == ("x", 2.0, "about 250x")
    no_tx = rows[("garagemq 0.1", "PERF-01", "transient", "ours", "tx per message")]
    assert no_tx["median"] is None and no_tx["runs"] == 0 and "connection.close 540" in no_tx["unsupported"]
    assert rows[("garagemq 0.1", "PERF-01", "transient", "ours", "asynchronous confirm")]["to_perftest"] is None
    curve = rows[("RabbitMQ 3.10.8", "PERF-02", "latency 20 ms", "ours", "prefetch 300")]
    assert curve["trend"] == [1000.0, 2000.0] and curve["position"] == 2
    assert list((site / "data" / "perf").glob("*.parquet"))
    assert (site / "perf.csv").read_text().count("\n") == 1 + len(summary["perf"])


def test_the_matrix_page_draws_throughput_by_mode_and_the_prefetch_curve(perf_built):
    summary, site = perf_built
    page = (site / "index.html").read_text()
    svgs = {name: ElementTree.fromstring((site / "charts" / name).read_text())
            for name in ("perf-throughput.svg", "perf-prefetch.svg")}
    ns = "{http://www.w3.org/2000/svg}"
    bars = [b.attrib for b in svgs["perf-throughput.svg"].iter(f"{ns}rect") if b.get("class") == "bar"]
    # RabbitMQ: its latest run's four modes; garagemq: three (no transactions)
    assert sorted((b["data-broker"], b["data-setting"]) for b in bars) == sorted(
        [("RabbitMQ 3.10.8", m) for m in MODES] + [("garagemq 0.1", m) for m in MODES if m != "tx per message"])
    assert {float(b["data-median"]) for b in bars if b["data-broker"] == "RabbitMQ 3.10.8"} == {2000, 4000, 6000, 8000}
    widths = {b["data-setting"]: float(b["width"]) for b in bars if b["data-broker"] == "RabbitMQ 3.10.8"}
    assert widths["no confirms"] < widths["tx per message"] < widths["asynchronous confirm"]
    unsupported = [t for t in svgs["perf-throughput.svg"].iter(f"{ns}text") if t.get("class") == "unsupported"]
    assert [(t.get("data-broker"), t.get("data-setting")) for t in unsupported] == [("garagemq 0.1", "tx per message")]
    assert "connection.close 540" in unsupported[0].find(f"{ns}title").text
    ticks = [t.attrib for t in svgs["perf-throughput.svg"].iter(f"{ns}line") if t.get("class") == "perftest"]
    assert [(t["data-broker"], t["data-setting"]) for t in ticks] == [("RabbitMQ 3.10.8", "asynchronous confirm")]

    points = [p.attrib for p in svgs["perf-prefetch.svg"].iter(f"{ns}circle") if p.get("class") == "point"]
    assert len(points) == 2 * len(PREFETCH)  # RabbitMQ direct and through latency; garagemq measured no PERF-02
    direct = sorted((float(p["cx"]), float(p["data-median"])) for p in points if p["data-case"] == "direct")
    assert [m for _, m in direct] == [200.0, 2000.0, 20000.0, 200000.0]  # in the order measured, x rising
    curves = {c.get("data-case"): c for c in svgs["perf-prefetch.svg"].iter(f"{ns}polyline")}
    assert "stroke-dasharray" not in curves["direct"].attrib and "stroke-dasharray" in curves["latency 20 ms"].attrib

    for chart_id in ("chart-perf-throughput", "chart-perf-prefetch"):
        assert f"id='{chart_id}'" in page
    assert page.count("<tr class=figure>") == len(summary["perf"])
    markdown = (site / "perf.md").read_text()
    assert "![Throughput by mode per broker (PERF-01)](charts/perf-throughput.svg)" in markdown
    assert "| RabbitMQ 3.10.8 | PERF-01 | transient | asynchronous confirm | 8,000 (7,200–8,800) msg/s | 1.5 | 2,500 " \
           "| 3.20 |" in markdown
    assert "| garagemq 0.1 | PERF-01 | transient | tx per message | unsupported (probe: tx.select" in markdown


def test_runs_without_perf_figures_draw_no_chart(spark, tmp_path):
    plain = tmp_path / "plain"
    synthetic.generate(plain, runs=2, rules=4, cases=1, fault_tests=0)
    site = tmp_path / "site"
    (site / "charts").mkdir(parents=True)
    (site / "charts" / "perf-prefetch.svg").write_text("<svg/>")  # an earlier build's chart
    (site / "perf.md").write_text("stale")
    summary = build([plain], site, allure=False, spark=spark)
    page = (site / "index.html").read_text()
    assert summary["perf"] == [] and summary["perf_page"] is None
    assert "chart-perf" not in page and "id=perf" not in page
    assert not (site / "perf.md").exists() and not list((site / "charts").glob("*.svg"))
    # Only latencies (PERF-03, ms): a table, and neither msg/s chart
    latency = tmp_path / "latency"
    make_run(latency, "l0", "RabbitMQ", "3.10.8", "2026-11-01T10:00:00+00:00", [perf_case("PERF-03", "persistent", [
        Figure("p99, window of 500", "ms", runs=[150.0, 200.0, 210.0], loads=[2.0] * 3)])])
    site = tmp_path / "site2"  # a session re-reading a rewritten folder may list its old files
    summary = build([latency], site, allure=False, spark=spark)
    page = (site / "index.html").read_text()
    assert [r["setting"] for r in summary["perf"]] == ["p99, window of 500"]
    assert "chart-perf" not in page and page.count("<tr class=figure>") == 1
    assert "200.0 (150.0–210.0) ms" in (site / "perf.md").read_text()
    assert not (site / "charts").exists()


def test_a_corrupt_figures_attachment_is_named_and_skipped(spark, tmp_path):
    root = tmp_path / "runs"
    make_run(root, "c0", "RabbitMQ", "3.10.8", "2026-11-01T10:00:00+00:00", [
        {"rule": "PERF-01", "outcome": "info", "attachments": {FIGURES_ATTACHMENT: '{"rule": "PERF-01", "figu'}},
        perf_case("PERF-02", "direct", consumer(1.0))])
    read = pipeline.read_runs(spark, landing.plan(landing.discover([root])).new)
    assert read.figures.count() == len(PREFETCH)
    assert len(read.problems) == 1 and f"skipped, corrupt {FIGURES_ATTACHMENT}" in read.problems[0]


# -- the instruments' side ------------------------------------------------------------------
PERFTEST_OUTPUT = """\
id: test-120000-123, starting consumer #0
id: test-120000-123, starting producer #0
id: test-120000-123, time 1.000 s, sent: 1200 msg/s, confirmed: 1100 msg/s, nacked: 0 msg/s, received: 0 msg/s, min/median/75th/95th/99th confirm latency: 1/2/3/4/5 ms
id: test-120000-123, time 2.000 s, sent: 9000 msg/s, confirmed: 9000 msg/s, nacked: 0 msg/s, received: 0 msg/s, min/median/75th/95th/99th confirm latency: 1/2/3/4/5 ms
id: test-120000-123, time 3.000 s, sent: 10000 msg/s, confirmed: 10000 msg/s, nacked: 0 msg/s, received: 0 msg/s, min/median/75th/95th/99th confirm latency: 1/2/3/4/5 ms
id: test-120000-123, time 4.001 s, sent: 12000 msg/s, confirmed: 12000 msg/s, nacked: 0 msg/s, received: 0 msg/s, min/median/75th/95th/99th confirm latency: 1/2/3/4/5 ms
id: test-120000-123, time 5.000 s, sent: 11000 msg/s, confirmed: 11000 msg/s, nacked: 0 msg/s, received: 0 msg/s, min/median/75th/95th/99th confirm latency: 1/2/3/4/5 ms
test stopped (Reached time limit)
id: test-120000-123, sending rate avg: 8600 msg/s
id: test-120000-123, receiving rate avg: 0 msg/s
"""


def test_perftest_counts_only_its_steady_samples():
    # the first two samples (connection, JIT warm-up) and the average over the whole run never count
    assert steady_rate(PERFTEST_OUTPUT, "sent") == (11000.0, 3)
    with pytest.raises(ValueError, match="none after its warm-up"):
        steady_rate("\n".join(PERFTEST_OUTPUT.splitlines()[:4]), "sent")
    # a consumer on a queue that ran dry: its empty seconds do not count
    drained = PERFTEST_OUTPUT.replace("received: 0 msg/s", "received: 5000 msg/s", 4)
    assert steady_rate(drained, "received") == (5000.0, 2)
    with pytest.raises(ValueError):
        steady_rate(PERFTEST_OUTPUT, "received")


def test_a_figure_keeps_every_repetition_with_its_load_and_a_ratio_pairs_them():
    fast, slow = figure("a", [10.0, 30.0, 20.0], loads=3.0), figure("b", [5.0, 10.0, 0.0])
    assert (fast.median, fast.spread) == (20.0, (10.0, 30.0))
    assert "20 msg/s (min 10, max 30, 3 runs, load 3.0)" == str(fast)
    pairs = ratio("a / b", fast, slow, "about 2x")
    assert pairs.runs[:2] == [2.0, 3.0] and math.isnan(pairs.runs[2]) and pairs.unit == "x"
    missing = ratio("a / c", fast, Figure("c", "msg/s", unsupported="probe: no tx"))
    assert missing.runs == [] and missing.unsupported == "probe: no tx" and missing.median is None
    assert json.loads(figures_json("PERF-01", "transient", [missing]))["figures"][0]["unsupported"] == "probe: no tx"
