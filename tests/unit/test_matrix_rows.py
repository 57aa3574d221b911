"""The matrix page (reports/site.py) shows every catalogued rule, and no pass rate for a
rule that could not run: PERF-01..06 had no row (they run only with -m perf), and an
unsupported rule read "0 %", as if it failed every run."""

from __future__ import annotations

import re

from amqp_conformance.reports import cells, site


def row(broker: str, rule: str, outcome: str, rate: float | None, cases: int = 1) -> dict:
    return {"broker_key": broker, "rule": rule, "latest_outcome": outcome, "latest_run": "r1",
            "latest_outcomes": [outcome] * cases, "pass_rate": rate, "runs": 3, "latest_report_id": None,
            "latest_case_links": [{"name": f"{rule}[{i}]", "outcome": outcome, "report_id": None}
                                  for i in range(cases)]}


def page(matrix: list[dict], **kwargs) -> str:
    return site.render(matrix, [], [], [], [], None, [], **kwargs)


def test_every_catalogued_rule_has_a_row_and_on_demand_rules_say_how_to_run_them():
    catalogue = cells.catalogue()
    assert {"ACK-04", "PERF-01", "PERF-06", "MDL-03", "CLU-01", "FR-20"} <= set(catalogue)
    assert catalogue["PERF-01"] == "not run (-m perf)" and catalogue["MDL-03"] == "not run (-m fuzz)"
    assert catalogue["ACK-04"] == "not run"
    html = page([row("RabbitMQ 4.0.5", "ACK-04", "pass", 1.0)])
    shown = re.findall(r"<tr data-rule='([A-Z]+-\d\d)'", html)
    assert set(shown) == set(catalogue) and len(shown) == len(catalogue)
    perf_row = html[html.index("<tr data-rule='PERF-01'"):]
    assert perf_row[:perf_row.index("</tr>")].endswith("<td class=none>not run (-m perf)</td>")


def test_an_unsupported_rule_shows_no_pass_rate():
    html = page([row("RabbitMQ 3.10.8", "CON-18", "unsupported", 0.0),
                 row("RabbitMQ 3.10.8", "ACK-04", "fail", 0.0)], catalogue={})
    con_18 = html[html.index("data-rule='CON-18' data-broker"):]
    con_18 = con_18[:con_18.index("</td>")]
    assert "0%" not in con_18 and "<small>– (3)</small>" in con_18
    ack_04 = html[html.index("data-rule='ACK-04' data-broker"):]
    assert "<small>0% (3)</small>" in ack_04[:ack_04.index("</td>")]  # a rule that ran and failed keeps its 0 %
