"""The views of the built site tell what the stored runs prove: the chart of each broker
version counts its cells (never a later narrow run alone), the pass rate is a weekly
summary over a window the page names, the safety table counts only the findings a case
held against the broker, and `reports diff` compares two runs case by case."""

from __future__ import annotations

import json
import re

import pytest

from amqp_conformance.reports import cells
from amqp_conformance.reports.build import build
from tests.integration.test_reports_pipeline import make_run, spark  # noqa: F401 - the shared SparkSession fixture

pytestmark = [pytest.mark.spark, pytest.mark.timeout(1200)]  # a Spark build: minutes on 2 loaded cores
VERSION = "RabbitMQ 3.10.8"


def history_case(rule: str, outcome: str, lost: list[str], unexpected: list[str] = ()) -> dict:
    """A fault test's record with its history check (the history itself: one publish, confirmed)."""
    history = [{"t": 1.0, "kind": "publish", "seq": 1, "message_id": "m1", "channel": 1},
               {"t": 1.1, "kind": "confirm", "seq": 1, "multiple": False, "ack": True}]
    check = {"fault": "down", "queue_type": "classic", "published": 1, "confirmed": 1, "delivered": 0,
             "lost": list(lost), "unexpected": list(unexpected), "duplicated": [], "recovered": [],
             "unflagged_redeliveries": [], "double_resolutions": [], "watermark_violations": []}
    return {"rule": rule, "outcome": outcome, "attachments": {
        "message-history.jsonl": "".join(json.dumps(e) + "\n" for e in history),
        "history-check.json": json.dumps(check)}}


@pytest.fixture
def runs(tmp_path):
    """One version: a whole run (three rules, a SHOULD broken, two fault tests) and a
    narrow run a week later (one case of one rule, failing now)."""
    root = tmp_path / "runs"
    make_run(root, "whole", "RabbitMQ", "3.10.8", "2026-11-02T10:00:00+00:00", [
        {"rule": "ACK-01", "outcome": "pass"}, {"rule": "ACK-01", "outcome": "pass", "name": "ACK-01[b]"},
        {"rule": "QOS-10", "outcome": "non-strict"},
        # FLT-01 held its loss against the broker; FLT-09 passed with messages still queued,
        # and saw one delivered that its history never published
        history_case("FLT-01", "fail", ["m1"]), history_case("FLT-09", "pass", ["m1"], ["x9"])])
    make_run(root, "narrow", "RabbitMQ", "3.10.8", "2026-11-09T10:00:00+00:00", [{"rule": "ACK-01", "outcome": "fail"}])
    return root


def test_the_views_count_what_the_runs_prove(spark, runs, tmp_path):
    site = tmp_path / "site"
    summary = build([runs], site, allure=False, spark=spark)
    page = (site / "index.html").read_text()
    # a version's state: every rule from the run that decides it (ACK-01 from the narrow
    # run, one case; the others from the whole run), not the narrow run's single case
    bars = dict(re.findall(rf"data-broker='{VERSION}' data-outcome='([^']+)' data-cases='(\d+)'", page))
    assert bars == {"pass": "1", "non-strict": "1", "fail": "2"}
    # the pass rate: one point per week and version, the window named
    points = re.findall(r"<circle class=point [^>]*data-week='([^']+)' data-runs='(\d+)'", page)
    assert sorted(points) == [("2026-11-02", "1"), ("2026-11-09", "1")]
    assert summary["window"] in page
    # the safety table: FLT-01's loss is a violation; FLT-09's check is counted apart
    safety = {row["fault"]: row for row in summary["safety"]}
    row = safety["down"]
    assert (row["lost"], row["unexpected"], row["violations"], row["unjudged_tests"]) == (1, 0, 1, 1)


def test_diff_of_two_runs_is_case_level(runs, capsys):
    assert cells.main(["whole", "narrow", "--runs", str(runs), "--site", str(runs / "no-site")]) == 1  # as diff(1)
    out = capsys.readouterr().out.splitlines()
    # ACK-01 broke; ACK-01[b], QOS-10 and the fault tests ran in the whole run only
    assert out[0] == ("1 case differs between whole and narrow, of 1 case(s) both ran "
                      "(4 on whole only, 0 on narrow only: not compared)")
    assert out[1] == "ACK-01: pass on whole | fail on narrow"
    assert out[2].endswith("-result.json") and "run whole" in out[2]
