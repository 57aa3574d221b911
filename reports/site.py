"""The static matrix page: broker x rule with the latest outcome and pass rate, each cell
linking to its Allure result; flaky rules; safety findings; confirm latency by fault; the
outcome counts of every run. Plots are inline SVG: the page is one self-contained file."""

from __future__ import annotations

import html
from datetime import datetime, timezone

from fixtures.outcomes import SKIPPED, Outcome

COLOURS = {Outcome.PASS: "#16a34a", Outcome.INFO: "#0891b2", Outcome.NON_STRICT: "#d97706",
           Outcome.UNSUPPORTED: "#64748b", SKIPPED: "#94a3b8", Outcome.ERROR: "#7c3aed", Outcome.FAIL: "#dc2626"}
ORDER = [str(o) for o in (Outcome.PASS, Outcome.INFO, Outcome.NON_STRICT, Outcome.UNSUPPORTED, SKIPPED,
                          Outcome.ERROR, Outcome.FAIL)]


def esc(value) -> str:
    return html.escape("" if value is None else str(value))


def render(matrix: list[dict], flaky: list[dict], safety: list[dict], latency: list[dict], runs: list[dict],
           report_link: str | None, problems: list[str], in_report: set[str] | None = None) -> str:
    """in_report: the run ids the Allure report holds; only their results can be linked."""
    brokers = sorted({r["broker_key"] for r in matrix})
    latency, safety = sorted(latency, key=_by_broker_fault), sorted(safety, key=_by_broker_fault)
    flaky = sorted(flaky, key=lambda r: (r["broker_key"], _rule_order(r["rule"])))
    rules = sorted({r["rule"] for r in matrix}, key=_rule_order)
    cells = {(r["broker_key"], r["rule"]): r for r in matrix}
    parts = [_HEAD, f"<h1>AMQP 0-9-1 conformance matrix</h1><p class=meta>{len(runs)} runs, "
             f"{len(brokers)} broker versions, {len(rules)} rules; built "
             f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC. "
             + (f"<a href='{esc(report_link)}'>Allure report</a> (latest run of each broker version)."
                if report_link else "No Allure report in this build.") + "</p>",
             "<p class=legend>" + " ".join(f"<span class='o' style='background:{COLOURS[o]}'>{o}</span>"
                                            for o in ORDER) + " &nbsp; cell: latest outcome, pass rate over runs (runs); "
             "&#9873; a known deviation from the broker's baseline</p>"]
    transports = _latest_transport(runs)
    parts.append("<table id=matrix><thead><tr><th>rule</th>"
                 + "".join(f"<th>{esc(b)}" + (f"<br><small>{esc(transports[b])}</small>" if transports.get(b) else "")
                           + "</th>" for b in brokers) + "</tr></thead><tbody>")
    for rule_id in rules:
        row = [f"<tr><th class=rule>{esc(rule_id)}</th>"]
        for broker in brokers:
            cell = cells.get((broker, rule_id))
            if cell is None:
                row.append("<td class=none>not run</td>")
                continue
            outcome = cell["latest_outcome"]
            text = (f"{esc(outcome)}{' &#9873;' if cell.get('known_deviation') else ''}<br>"
                    f"<small>{cell['pass_rate'] * 100:.0f}% ({cell['runs']})</small>")
            title = esc(f"{rule_id} on {broker}: {outcome} in run {cell['latest_run']}\n"
                        f"{cell.get('latest_message') or ''}")
            if report_link and cell.get("latest_report_id") and (in_report is None or cell["latest_run"] in in_report):
                text = f"<a href='{esc(report_link)}#{esc(cell['latest_report_id'])}'>{text}</a>"
            row.append(f"<td class=cell data-rule='{esc(rule_id)}' data-broker='{esc(broker)}' "
                       f"data-outcome='{esc(outcome)}' style='background:{COLOURS.get(outcome, '#fff')}' "
                       f"title='{title}'>{text}</td>")
        parts.append("".join(row) + "</tr>")
    parts.append("</tbody></table>")
    parts.append("<h2>Outcomes per run</h2>" + _runs_plot(runs))
    parts.append("<h2>Confirm latency by fault (publish &rarr; confirm, ms)</h2>" + _latency_plot(latency)
                 + _table(latency, ["broker_key", "fault", "confirms", "p50_ms", "p90_ms", "p99_ms", "max_ms"]))
    parts.append("<h2>Safety findings from fault histories</h2>"
                 + _table(safety, ["broker_key", "fault", "runs", "checked_tests", "published", "confirmed",
                                   "delivered", "lost", "unexpected", "duplicated", "unflagged_redeliveries",
                                   "double_resolutions", "watermark_violations", "recovered", "violations",
                                   "lost_seen", "duplicated_seen", "unexpected_seen", "unflagged_seen"],
                          highlight="violations"))
    parts.append("<p class=meta>lost ... watermark_violations: the fault layer's history checks; "
                 "*_seen: counted by the pipeline from the message histories themselves.</p>")
    parts.append("<h2>Flaky rules (mixed outcomes for one broker)</h2>"
                 + _table(flaky, ["broker_key", "rule", "runs", "outcomes", "flips", "flip_rate"]))
    if problems:
        parts.append("<h2>Skipped input</h2><ul class=problems>"
                     + "".join(f"<li>{esc(p)}</li>" for p in problems) + "</ul>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _by_broker_fault(row: dict):
    return row["broker_key"], row["fault"]


def _rule_order(rule_id: str):
    area, _, number = rule_id.partition("-")
    return (area, int(number) if number.isdigit() else 0, rule_id)


def _table(rows: list[dict], columns: list[str], highlight: str | None = None) -> str:
    if not rows:
        return "<p class=empty>none</p>"
    out = ["<table class=data><tr>" + "".join(f"<th>{esc(c)}</th>" for c in columns) + "</tr>"]
    for row in rows:
        cls = " class=bad" if highlight and (row.get(highlight) or 0) > 0 else ""
        values = [", ".join(row[c]) if isinstance(row.get(c), list) else row.get(c) for c in columns]
        out.append(f"<tr{cls}>" + "".join(f"<td>{esc(v)}</td>" for v in values) + "</tr>")
    return "".join(out) + "</table>"


def _latest_transport(runs: list[dict]) -> dict[str, str | None]:
    """Each broker version's transport (tcp/tls, version, cipher, peer verified, SASL
    mechanism) in its latest run: the run whose outcomes the matrix shows first."""
    latest: dict[str, dict] = {}
    for run in sorted(runs, key=lambda r: (r["started_at"], r["run_id"])):
        latest[run["broker_key"]] = run
    return {key: run.get("transport") for key, run in latest.items()}


def _runs_plot(runs: list[dict]) -> str:
    if not runs:
        return "<p class=empty>none</p>"
    runs = sorted(runs, key=lambda r: r["started_at"])[-40:]
    width, bar, gap, height = 900, 18, 4, 160
    top = max(sum((r.get("outcomes") or {}).get(o, 0) for o in ORDER) for r in runs) or 1
    svg = [f"<svg class=plot width='{width}' height='{height + 90}' role='img' aria-label='outcomes per run'>"]
    for i, run in enumerate(runs):
        x, y = 40 + i * (bar + gap), height
        for outcome in ORDER:
            n = (run.get("outcomes") or {}).get(outcome, 0)
            h = n / top * (height - 10)
            if n:
                y -= h
                svg.append(f"<rect x='{x}' y='{y:.1f}' width='{bar}' height='{h:.1f}' fill='{COLOURS[outcome]}'>"
                           f"<title>{esc(run['run_id'])} {esc(run['broker_key'])} ({esc(run.get('transport') or 'transport not recorded')}): "
                           f"{n} {outcome}</title></rect>")
        svg.append(f"<text x='{x + bar / 2}' y='{height + 8}' transform='rotate(60 {x + bar / 2} {height + 8})' "
                   f"font-size='9'>{esc(run['broker_key'])}</text>")
    svg.append(f"<text x='0' y='12' font-size='10'>{top}</text><text x='0' y='{height}' font-size='10'>0</text></svg>")
    return "".join(svg)


def _latency_plot(latency: list[dict]) -> str:
    if not latency:
        return "<p class=empty>no message histories with confirms</p>"
    width, row_h, bars = 1150, 22, 540
    top = max(r["p99_ms"] or 0 for r in latency) or 1
    svg = [f"<svg class=plot width='{width}' height='{row_h * len(latency) + 20}' role='img' "
           f"aria-label='confirm latency percentiles'>"]
    for i, r in enumerate(latency):
        y = 10 + i * row_h
        svg.append(f"<text x='0' y='{y + 12}' font-size='11'>{esc(r['broker_key'])} / {esc(r['fault'])}</text>")
        for p, colour in (("p99_ms", "#fca5a5"), ("p90_ms", "#f87171"), ("p50_ms", "#b91c1c")):
            w = (r[p] or 0) / top * bars
            svg.append(f"<rect x='260' y='{y}' width='{w:.1f}' height='14' fill='{colour}'>"
                       f"<title>{p[:-3]} {r[p]} ms</title></rect>")
        svg.append(f"<text x='{270 + bars}' y='{y + 12}' font-size='10'>p50 {r['p50_ms']} / "
                   f"p90 {r['p90_ms']} / p99 {r['p99_ms']} ms ({r['confirms']} confirms)</text>")
    svg.append("</svg>")
    return "".join(svg)


_HEAD = """<!doctype html><html lang=en><head><meta charset=utf-8>
<title>AMQP 0-9-1 conformance matrix</title>
<style>
body{font:14px system-ui,sans-serif;margin:24px;color:#111}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}
.meta,.legend{color:#444}.o{color:#fff;padding:1px 6px;border-radius:3px;font-size:12px}
#matrix{border-collapse:collapse}#matrix th,#matrix td{border:1px solid #fff;padding:4px 10px;text-align:center}
#matrix thead th{background:#1e293b;color:#fff}#matrix th.rule{background:#e2e8f0;text-align:left}
#matrix td.cell{color:#fff;min-width:90px}#matrix td.cell a{color:#fff;text-decoration:none}
#matrix td.none{background:#f1f5f9;color:#94a3b8}
table.data{border-collapse:collapse;font-size:13px}table.data th,table.data td{border:1px solid #cbd5e1;padding:3px 8px}
table.data tr.bad td{background:#fee2e2}.empty{color:#64748b}.problems{color:#92400e}
</style></head><body>"""
