"""The static matrix page: broker x rule with the latest outcome and pass rate, each cell
linking to its Allure result; two charts (the outcome counts of each broker's latest run,
and each broker's pass rate over the stored runs); flaky rules; safety findings; confirm
latency by fault; when runs hold PERF figures, their two charts (throughput by mode per
broker, the prefetch curve) and table with trends, also written as perf.md and
charts/*.svg. Plots are inline SVG: the page is one self-contained file that makes no
request. Also the same matrix as a Markdown table (matrix.md, for the README)."""

from __future__ import annotations

import html
from datetime import datetime, timezone

from amqp_conformance.fixtures.core.outcomes import SKIPPED, Outcome

from . import cells as rule_cells

COLOURS = {Outcome.PASS: "#16a34a", Outcome.INFO: "#0891b2", Outcome.NON_STRICT: "#d97706",
           Outcome.UNSUPPORTED: "#64748b", SKIPPED: "#94a3b8", Outcome.ERROR: "#7c3aed", Outcome.FAIL: "#dc2626"}
ORDER = [str(o) for o in (Outcome.PASS, Outcome.INFO, Outcome.NON_STRICT, Outcome.UNSUPPORTED, SKIPPED,
                          Outcome.ERROR, Outcome.FAIL)]


def esc(value) -> str:
    return html.escape("" if value is None else str(value))


def render(matrix: list[dict], flaky: list[dict], safety: list[dict], latency: list[dict], runs: list[dict],
           report_link: str | None, problems: list[str], in_report: set[str] | None = None,
           run_outcomes: list[dict] | None = None, perf: list[dict] | None = None) -> str:
    """in_report: the run ids the Allure report holds; only their results can be linked.
    run_outcomes: (run_id, broker_key, run_started, outcome, cases) rows, for the charts.
    perf: the PERF figures with their trends (pipeline.perf_trends), for their charts."""
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
                                            for o in ORDER) + " &nbsp; cell: the rule's outcome in the latest run (fail if any case failed or "
             "errored, else non-strict, else pass if any case passed, else info, else unsupported) and the "
             "share of its cases that differ, pass rate over runs (runs), a link to each case; "
             "&#9873; a known deviation from the broker's baseline; * a change its baseline did not expect</p>"]
    transports = _latest_transport(runs)
    parts.append("<table id=matrix><thead><tr><th>rule</th>"
                 + "".join(f"<th>{esc(b)}" + (f"<br><small>{esc(transports[b])}</small>" if transports.get(b) else "")
                           + "</th>" for b in brokers) + "</tr></thead><tbody>")
    link = _linker(report_link, in_report)
    for rule_id in rules:
        row = [f"<tr><th class=rule>{esc(rule_id)}</th>"]
        for broker in brokers:
            cell = cells.get((broker, rule_id))
            if cell is None:
                row.append("<td class=none>not run</td>")
                continue
            row.append(_matrix_cell(rule_id, broker, cell, link))
        parts.append("".join(row) + "</tr>")
    parts.append("</tbody></table>")
    parts.append(_differs_section(matrix, brokers, link))
    per_run = _per_run(run_outcomes or [])
    parts.append("<h2>Outcomes per broker (its latest run)</h2>" + _outcomes_per_broker_chart(per_run))
    parts.append("<h2>Pass rate of each broker over the stored runs</h2>" + _pass_rate_chart(per_run))
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
    parts.append(perf_section(perf or []))
    parts.append("<h2>Flaky rules (mixed outcomes for one broker)</h2>"
                 + _table(flaky, ["broker_key", "rule", "runs", "outcomes", "flips", "flip_rate"]))
    if problems:
        parts.append("<h2>Skipped input</h2><ul class=problems>"
                     + "".join(f"<li>{esc(p)}</li>" for p in problems) + "</ul>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _linker(report_link: str | None, in_report: set[str] | None):
    """The Allure link of a case of a run, or None where the report does not hold the run."""
    def link(run_id: str, report_id: str | None) -> str | None:
        if not report_link or not report_id or (in_report is not None and run_id not in in_report):
            return None
        return f"{report_link}#{report_id}"
    return link


def _matrix_cell(rule_id: str, broker: str, cell: dict, link) -> str:
    outcome = cell["latest_outcome"]
    text = (f"{esc(rule_cells.mix(cell.get('latest_outcomes') or [outcome]))}"
            f"{' &#9873;' if cell.get('known_deviation') else ''}{' *' if cell.get('latest_changed') else ''}")
    deciding = link(cell["latest_run"], cell.get("latest_report_id"))
    if deciding:
        text = f"<a class=decides href='{esc(deciding)}'>{text}</a>"
    cases = []
    for case in cell.get("latest_case_links") or []:
        target = link(cell["latest_run"], case.get("report_id"))
        mark = (f"<a class=case href='{esc(target)}'" if target else "<span class=case") + (
            f" data-outcome='{esc(case['outcome'])}' title='{esc(case['name'])}: {esc(case['outcome'])}'"
            f" style='background:{COLOURS.get(case['outcome'], '#fff')}'></{'a' if target else 'span'}>")
        cases.append(mark)
    title = esc(f"{rule_id} on {broker}: {outcome} in run {cell['latest_run']}\n{cell.get('latest_message') or ''}")
    return (f"<td class=cell data-rule='{esc(rule_id)}' data-broker='{esc(broker)}' data-outcome='{esc(outcome)}' "
            f"style='background:{COLOURS.get(outcome, '#fff')}' title='{title}'>{text}<br>"
            f"<small>{cell['pass_rate'] * 100:.0f}% ({cell['runs']})</small>"
            + (f"<br><span class=cases>{''.join(cases)}</span>" if len(cases) > 1 else "") + "</td>")


def _differs_section(matrix: list[dict], brokers: list[str], link) -> str:
    """The rules whose outcome differs between two chosen broker versions: every pair is
    written out, the two selectors show one (no script: the page works without one too,
    showing every pair under its heading)."""
    if len(brokers) < 2:
        return "<h2 id=differs-heading>Differences between broker versions</h2><p class=empty>one broker version only</p>"
    options = "".join(f"<option value='{esc(b)}'>{esc(b)}</option>" for b in brokers)
    parts = ["<h2 id=differs-heading>Differences between broker versions</h2>",
             "<p class=meta>Only the rules whose outcome differs; each side links the case that decided it. "
             "Also in a terminal: <code>python -m amqp_conformance.reports diff A B</code>.</p>",
             f"<p><select id=differs-a>{options}</select> against <select id=differs-b>{options}</select> "
             "<span id=differs-count></span></p><div id=differs>"]
    for i, a in enumerate(brokers):
        for b in brokers[i + 1:]:
            found = rule_cells.differences(matrix, a, b)
            rows = []
            for d in found:
                sides = []
                for side, broker in ((d.a, a), (d.b, b)):
                    target = link(side["latest_run"], side.get("latest_report_id"))
                    text = esc(rule_cells.mix(side.get("latest_outcomes") or [side["latest_outcome"]]))
                    sides.append(f"<td data-outcome='{esc(side['latest_outcome'])}' "
                                 f"style='background:{COLOURS.get(side['latest_outcome'], '#fff')}'>"
                                 + (f"<a href='{esc(target)}'>{text}</a>" if target else text) + "</td>")
                rows.append(f"<tr class=difference data-rule='{esc(d.rule)}'><th>{esc(d.rule)}</th>{''.join(sides)}</tr>")
            parts.append(f"<table class='data pair' data-a='{esc(a)}' data-b='{esc(b)}' "
                         f"data-count='{esc(rule_cells.count_text(len(found)))}'>"
                         f"<caption>{esc(a)} against {esc(b)}: {esc(rule_cells.count_text(len(found)))}</caption>"
                         f"<thead><tr><th>rule</th><th>{esc(a)}</th><th>{esc(b)}</th></tr></thead><tbody>"
                         + "".join(rows) + "</tbody></table>")
    parts.append("</div>" + _DIFFERS_SCRIPT)
    return "".join(parts)


# Shows the table of the chosen pair (either order) and hides the others.
_DIFFERS_SCRIPT = """<script>
(function(){
  var a=document.getElementById('differs-a'), b=document.getElementById('differs-b');
  b.selectedIndex=Math.min(1,b.options.length-1);
  function show(){
    var shown=null;
    document.querySelectorAll('#differs table.pair').forEach(function(t){
      var hit=(t.dataset.a===a.value&&t.dataset.b===b.value)||(t.dataset.a===b.value&&t.dataset.b===a.value);
      t.style.display=hit?'':'none'; if(hit){shown=t;}
    });
    document.getElementById('differs-count').textContent=shown?shown.dataset.count:'choose two versions';
  }
  a.addEventListener('change',show); b.addEventListener('change',show); show();
})();
</script>"""


def _by_broker_fault(row: dict):
    return row["broker_key"], row["fault"]


_rule_order = rule_cells.rule_order


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


def _per_run(run_outcomes: list[dict]) -> list[dict]:
    """One entry per run, oldest first: its broker, start and case counts by outcome."""
    runs: dict[str, dict] = {}
    for row in run_outcomes:
        run = runs.setdefault(row["run_id"], {"run_id": row["run_id"], "broker_key": row["broker_key"],
                                              "started": str(row["run_started"]), "outcomes": {}})
        run["outcomes"][row["outcome"]] = run["outcomes"].get(row["outcome"], 0) + row["cases"]
    for run in runs.values():
        total = sum(run["outcomes"].values())
        passed = run["outcomes"].get("pass", 0) + run["outcomes"].get("info", 0)
        run["cases"], run["pass_rate"] = total, (passed / total if total else 0.0)
    return sorted(runs.values(), key=lambda r: (r["started"], r["run_id"]))


def _outcomes_per_broker_chart(per_run: list[dict]) -> str:
    """A stacked bar per broker version: its latest run's cases by outcome class."""
    latest = {run["broker_key"]: run for run in per_run}  # oldest first: the last one wins
    if not latest:
        return "<p class=empty>none</p>"
    label_w, bars, row_h = 220, 600, 26
    top = max(run["cases"] for run in latest.values()) or 1
    svg = [f"<svg id=chart-outcomes-per-broker class=plot width='{label_w + bars + 260}' "
           f"height='{row_h * len(latest) + 10}' role='img' aria-label='outcome counts per broker'>"]
    for i, (broker, run) in enumerate(sorted(latest.items())):
        y, x = 5 + i * row_h, label_w
        svg.append(f"<text x='0' y='{y + 14}' font-size='12'>{esc(broker)}</text>")
        for outcome in ORDER:
            n = run["outcomes"].get(outcome, 0)
            if not n:
                continue
            w = n / top * bars
            svg.append(f"<rect class=bar x='{x:.1f}' y='{y}' width='{w:.1f}' height='18' fill='{COLOURS[outcome]}' "
                       f"data-broker='{esc(broker)}' data-outcome='{outcome}' data-cases='{n}'>"
                       f"<title>{esc(broker)}: {n} {outcome} (run {esc(run['run_id'])})</title></rect>")
            x += w
        summary = ", ".join(f"{run['outcomes'][o]} {o}" for o in ORDER if run["outcomes"].get(o))
        svg.append(f"<text x='{x + 6:.1f}' y='{y + 14}' font-size='11'>{run['cases']} cases: {esc(summary)}</text>")
    svg.append("</svg>")
    return "".join(svg)


LINE_COLOURS = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#4d7c0f", "#be185d"]


def _pass_rate_chart(per_run: list[dict]) -> str:
    """One line per broker version: (pass + info) / cases of each of its runs, in run order;
    the x axis is the stored runs of all brokers in time order."""
    if not per_run:
        return "<p class=empty>none</p>"
    brokers = sorted({run["broker_key"] for run in per_run})
    left, width, height, top_pad = 40, max(320, 24 * len(per_run)), 180, 10
    step = width / max(len(per_run) - 1, 1)
    svg = [f"<svg id=chart-pass-rate class=plot width='{left + width + 240}' height='{height + 40}' role='img' "
           f"aria-label='pass rate of each broker over the stored runs'>",
           f"<line x1='{left}' y1='{top_pad}' x2='{left}' y2='{top_pad + height}' stroke='#94a3b8'/>",
           f"<line x1='{left}' y1='{top_pad + height}' x2='{left + width}' y2='{top_pad + height}' stroke='#94a3b8'/>",
           f"<text x='0' y='{top_pad + 4}' font-size='10'>100%</text>",
           f"<text x='8' y='{top_pad + height}' font-size='10'>0%</text>"]
    for b, broker in enumerate(brokers):
        colour = LINE_COLOURS[b % len(LINE_COLOURS)]
        points = [(left + i * step, top_pad + (1 - run["pass_rate"]) * height, run)
                  for i, run in enumerate(per_run) if run["broker_key"] == broker]
        if len(points) > 1:
            svg.append(f"<polyline fill='none' stroke='{colour}' stroke-width='2' points='"
                       + " ".join(f"{x:.1f},{y:.1f}" for x, y, _ in points) + "'/>")
        for x, y, run in points:
            svg.append(f"<circle class=point cx='{x:.1f}' cy='{y:.1f}' r='4' fill='{colour}' "
                       f"data-broker='{esc(broker)}' data-run='{esc(run['run_id'])}' "
                       f"data-pass-rate='{run['pass_rate']:.4f}'><title>{esc(broker)}, run {esc(run['run_id'])}: "
                       f"{run['pass_rate'] * 100:.1f}% of {run['cases']} cases pass</title></circle>")
        svg.append(f"<rect x='{left + width + 20}' y='{top_pad + b * 18}' width='12' height='12' fill='{colour}'/>"
                   f"<text x='{left + width + 38}' y='{top_pad + b * 18 + 10}' font-size='11'>{esc(broker)}</text>")
    svg.append("</svg>")
    return "".join(svg)


def markdown_cell(cell: dict) -> str:
    """The rule's outcome and the mix of its cases in the latest run, as on the page
    (amqp_conformance.reports.cells.mix); `*` when the baseline did not expect it."""
    return rule_cells.mix(cell.get("latest_outcomes") or [cell["latest_outcome"]]) + (
        " *" if cell.get("latest_changed") else "")


def markdown(matrix: list[dict]) -> str:
    """The rule x broker table in Markdown (matrix.md; the README shows it), one column per
    broker version, each cell from the rule's cases in that broker's latest run."""
    brokers = sorted({r["broker_key"] for r in matrix})
    cells = {(r["broker_key"], r["rule"]): r for r in matrix}
    lines = ["| rule | " + " | ".join(brokers) + " |", "|---" * (len(brokers) + 1) + "|"]
    for rule_id in sorted({r["rule"] for r in matrix}, key=_rule_order):
        row = []
        for broker in brokers:
            cell = cells.get((broker, rule_id))
            row.append("–" if cell is None else markdown_cell(cell))
        lines.append(f"| {rule_id} | " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


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
.cases a,.cases span{display:inline-block;width:9px;height:9px;margin:0 1px;border:1px solid #fff;border-radius:2px}
#differs table.pair{margin:6px 0 14px}#differs td{color:#fff;text-align:center}#differs td a{color:#fff}
table.data{border-collapse:collapse;font-size:13px}table.data th,table.data td{border:1px solid #cbd5e1;padding:3px 8px}
table.data tr.bad td{background:#fee2e2}.empty{color:#64748b}.problems{color:#92400e}
</style></head><body>"""


# -- PERF figures: the charts, the table with trends, perf.md ------------------------------
PERF_CHARTS = {"perf-throughput.svg": "Throughput by mode per broker (PERF-01)",
               "perf-prefetch.svg": "Consume rate by prefetch, direct and through latency (PERF-02)"}


def perf_charts(perf: list[dict]) -> dict[str, str]:
    """The PERF charts the figures allow, by file name: a chart with nothing to show is left out."""
    drawn = {"perf-throughput.svg": throughput_chart(perf), "perf-prefetch.svg": prefetch_chart(perf)}
    return {name: svg for name, svg in drawn.items() if svg is not None}


def write_perf(out, perf: list[dict]) -> str | None:
    """perf.md and the charts under charts/ when the runs hold PERF figures: the path of
    perf.md, or None (and no stale page or chart from an earlier build is left)."""
    charts = perf_charts(perf)
    for name in PERF_CHARTS:
        path = out / "charts" / name
        if name in charts:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(charts[name])
        else:
            path.unlink(missing_ok=True)
    page = out / "perf.md"
    if not perf:
        page.unlink(missing_ok=True)
        return None
    page.write_text(perf_markdown(perf, list(charts)))
    return str(page)


def _ours(perf: list[dict], rule_id: str) -> list[dict]:
    return [r for r in perf if r["rule"] == rule_id and r["instrument"] == "ours" and r["unit"] == "msg/s"]


def _settings(rows: list[dict]) -> list[str]:
    first: dict[str, int] = {}
    for row in rows:
        first[row["setting"]] = min(first.get(row["setting"], row["position"]), row["position"])
    return sorted(first, key=lambda s: (first[s], s))


def _cases(rows: list[dict]) -> list[str]:
    """The cases in a stable order, the plain one first (transient before persistent,
    direct before a fault)."""
    return sorted({r["case"] for r in rows}, key=lambda c: (c not in ("transient", "direct"), c))


def _log_scale(values: list[float], length: float):
    """A log10 scale over whole decades covering `values`: (position of a value, decades)."""
    import math
    positive = [v for v in values if v and v > 0]
    low = math.floor(math.log10(min(positive))) if positive else 0
    high = max(math.ceil(math.log10(max(positive))) if positive else 1, low + 1)

    def at(value: float) -> float:
        return (math.log10(max(value, 10 ** low)) - low) / (high - low) * length
    return at, [10 ** d for d in range(low, high + 1)]


def _rate(value) -> str:
    if value is None:
        return "–"
    return f"{value:,.0f}" if value >= 100 else f"{value:,.1f}"


def _broker_colours(perf: list[dict]) -> dict[str, str]:
    return {b: LINE_COLOURS[i % len(LINE_COLOURS)] for i, b in enumerate(sorted({r["broker_key"] for r in perf}))}


def _svg_open(chart_id: str, width: float, height: float, label: str) -> str:
    return (f"<svg xmlns='http://www.w3.org/2000/svg' id='{chart_id}' class='plot' width='{width:.0f}' "
            f"height='{height:.0f}' font-family='system-ui,sans-serif' role='img' aria-label='{esc(label)}'>")


def throughput_chart(perf: list[dict]) -> str | None:
    """PERF-01: one panel per case (transient, persistent); in each, a group of bars per
    publishing mode, one bar per broker (log scale); PerfTest's figure of the same mode,
    run, broker and case is a black tick on the bar; an unsupported mode says so."""
    rows = _ours(perf, "PERF-01")
    if not any(r["median"] for r in rows):
        return None
    colours = _broker_colours(rows)
    brokers, settings, cases = list(colours), _settings(rows), _cases(rows)
    cell = {(r["case"], r["setting"], r["broker_key"]): r for r in rows}
    label_w, plot_w, bar_h, gap, legend_w = 170, 520, 9, 8, 230
    at, decades = _log_scale([v for r in rows for v in (r["median"], r["max"], r["perftest_median"]) if v], plot_w)
    group_h = bar_h * len(brokers) + gap
    panel_h = 24 + group_h * len(settings) + 18
    svg = [_svg_open("chart-perf-throughput", label_w + plot_w + legend_w, panel_h * len(cases) + 10,
                     "publisher throughput by mode per broker")]
    for p, case in enumerate(cases):
        top = p * panel_h + 18
        svg.append(f"<text x='0' y='{top - 4}' font-size='13' font-weight='bold'>{esc(case)} messages, msg/s "
                   f"(log scale)</text>")
        bottom = top + group_h * len(settings)
        for decade in decades:
            x = label_w + at(decade)
            svg.append(f"<line x1='{x:.1f}' y1='{top}' x2='{x:.1f}' y2='{bottom}' stroke='#e2e8f0'/><text "
                       f"x='{x:.1f}' y='{bottom + 12}' font-size='10' text-anchor='middle'>{_rate(decade)}</text>")
        for s, setting in enumerate(settings):
            y0 = top + s * group_h
            svg.append(f"<text x='0' y='{y0 + group_h / 2 + 2:.1f}' font-size='11'>{esc(setting)}</text>")
            for b, broker in enumerate(brokers):
                row, y = cell.get((case, setting, broker)), y0 + b * bar_h
                if row is None:
                    continue
                if row["unsupported"] or row["median"] is None:
                    svg.append(f"<text class='unsupported' x='{label_w + 4}' y='{y + bar_h - 1}' font-size='9' "
                               f"fill='#64748b' data-broker='{esc(broker)}' data-setting='{esc(setting)}'>"
                               f"{esc(broker)}: unsupported<title>{esc(row['unsupported'] or 'not measured')}"
                               f"</title></text>")
                    continue
                svg.append(f"<rect class='bar' x='{label_w}' y='{y}' width='{max(at(row['median']), 1):.1f}' "
                           f"height='{bar_h - 1}' fill='{colours[broker]}' data-broker='{esc(broker)}' "
                           f"data-case='{esc(case)}' data-setting='{esc(setting)}' data-median='{row['median']:.1f}'>"
                           f"<title>{esc(broker)}, {esc(setting)} ({esc(case)}): {_rate(row['median'])} msg/s "
                           f"(min {_rate(row['min'])}, max {_rate(row['max'])}; load {row['load']})</title></rect>")
                if row["perftest_median"]:
                    x = label_w + at(row["perftest_median"])
                    svg.append(f"<line class='perftest' x1='{x:.1f}' y1='{y - 1}' x2='{x:.1f}' y2='{y + bar_h}' "
                               f"stroke='#111' stroke-width='2' data-broker='{esc(broker)}' "
                               f"data-setting='{esc(setting)}'><title>PerfTest: {_rate(row['perftest_median'])} "
                               f"msg/s</title></line>")
    svg.append(_legend(colours, label_w + plot_w + 20, 10, extra=[("tick", "PerfTest, same run")]))
    svg.append("</svg>")
    return "".join(svg)


def prefetch_chart(perf: list[dict]) -> str | None:
    """PERF-02: the consume rate by prefetch (log scale), one line per broker and path:
    solid straight to the broker, dashed through the latency proxy."""
    rows = [r for r in _ours(perf, "PERF-02") if r["median"]]
    if not rows:
        return None
    colours = _broker_colours(rows)
    settings, cases = _settings(rows), _cases(rows)
    left, plot_w, plot_h, top, legend_w = 60, max(420, 80 * len(settings)), 260, 14, 260
    at, decades = _log_scale([v for r in rows for v in (r["median"], r["max"])], plot_h)
    step = plot_w / max(len(settings) - 1, 1)
    svg = [_svg_open("chart-perf-prefetch", left + plot_w + legend_w, top + plot_h + 40,
                     "consume rate by prefetch, direct and through latency"),
           f"<text x='0' y='{top - 2}' font-size='10'>msg/s</text>"]
    for decade in decades:
        y = top + plot_h - at(decade)
        svg.append(f"<line x1='{left}' y1='{y:.1f}' x2='{left + plot_w}' y2='{y:.1f}' stroke='#e2e8f0'/>"
                   f"<text x='{left - 6}' y='{y + 3:.1f}' font-size='10' text-anchor='end'>{_rate(decade)}</text>")
    for i, setting in enumerate(settings):
        svg.append(f"<text x='{left + i * step:.1f}' y='{top + plot_h + 16}' font-size='10' "
                   f"text-anchor='middle'>{esc(setting)}</text>")
    dashes = {case: ("" if c == 0 else " stroke-dasharray='6 4'") for c, case in enumerate(cases)}
    for broker, colour in colours.items():
        for case in cases:
            points = [(left + settings.index(r["setting"]) * step, top + plot_h - at(r["median"]), r)
                      for r in rows if r["broker_key"] == broker and r["case"] == case]
            points.sort(key=lambda p: p[0])
            if len(points) > 1:
                svg.append(f"<polyline class='curve' fill='none' stroke='{colour}' stroke-width='2'{dashes[case]} "
                           f"data-broker='{esc(broker)}' data-case='{esc(case)}' points='"
                           + " ".join(f"{x:.1f},{y:.1f}" for x, y, _ in points) + "'/>")
            for x, y, r in points:
                svg.append(f"<circle class='point' cx='{x:.1f}' cy='{y:.1f}' r='3.5' fill='{colour}' "
                           f"data-broker='{esc(broker)}' data-case='{esc(case)}' data-setting='{esc(r['setting'])}' "
                           f"data-median='{r['median']:.1f}'><title>{esc(broker)}, {esc(r['setting'])} "
                           f"({esc(case)}): {_rate(r['median'])} msg/s (min {_rate(r['min'])}, max "
                           f"{_rate(r['max'])}; load {r['load']})</title></circle>")
    svg.append(_legend(colours, left + plot_w + 20, top, extra=[(dashes[c] or "solid", c) for c in cases]))
    svg.append("</svg>")
    return "".join(svg)


def _legend(colours: dict[str, str], x: float, y: float, extra: list[tuple[str, str]]) -> str:
    parts = []
    for i, (broker, colour) in enumerate(colours.items()):
        parts.append(f"<rect x='{x}' y='{y + i * 16}' width='12' height='10' fill='{colour}'/>"
                     f"<text x='{x + 18}' y='{y + i * 16 + 9}' font-size='11'>{esc(broker)}</text>")
    for j, (style, text) in enumerate(extra):
        yy = y + (len(colours) + j) * 16 + 6
        if style == "tick":
            mark = f"<line x1='{x + 6}' y1='{yy - 6}' x2='{x + 6}' y2='{yy + 5}' stroke='#111' stroke-width='2'/>"
        else:
            dash = style if style != "solid" else ""
            mark = f"<line x1='{x}' y1='{yy}' x2='{x + 14}' y2='{yy}' stroke='#111' stroke-width='2'{dash}/>"
        parts.append(mark + f"<text x='{x + 18}' y='{yy + 4}' font-size='11'>{esc(text)}</text>")
    return "".join(parts)


def _sparkline(trend: list[float] | None) -> str:
    """The figure's medians over the stored runs, oldest first (nothing for one run)."""
    values = [v for v in trend or [] if v is not None]
    if len(values) < 2:
        return ""
    low, high = min(values), max(values)
    span = (high - low) or 1
    points = " ".join(f"{2 + i * 76 / (len(values) - 1):.1f},{16 - (v - low) / span * 14:.1f}"
                      for i, v in enumerate(values))
    return (f"<svg class='spark' width='80' height='18'><polyline fill='none' stroke='#2563eb' stroke-width='1.5' "
            f"points='{points}'/></svg>")


def _perf_order(row: dict):
    return (row["broker_key"], _rule_order(row["rule"]), row["case"] not in ("transient", "direct"), row["case"],
            row["position"], row["instrument"])


def _figure_text(row: dict) -> str:
    if row["unsupported"]:
        return f"unsupported ({row['unsupported']})"
    if row["median"] is None:
        return "not measured"
    digits = 0 if row["unit"] == "msg/s" else (1 if row["unit"] == "ms" else 2)
    return (f"{row['median']:,.{digits}f} ({row['min']:,.{digits}f}–{row['max']:,.{digits}f}) "
            f"{'×' if row['unit'] == 'x' else row['unit']}")


def _change_text(row: dict) -> str:
    return "–" if row.get("change") is None else f"{row['change'] * 100:+.0f}%"


def perf_section(perf: list[dict]) -> str:
    """The matrix page's PERF section: the two charts and the figures of the latest run of
    each broker with their trend; nothing at all when no run holds PERF figures."""
    if not perf:
        return ""
    parts = ["<h2 id=perf>Performance: the guides' claims measured (PERF)</h2>"]
    for name, chart in perf_charts(perf).items():
        parts.append(f"<h3>{esc(PERF_CHARTS[name])}</h3>{chart}")
    rows = ["<table class=data id=perf-figures><tr>" + "".join(
        f"<th>{c}</th>" for c in ("broker", "rule", "case", "instrument", "setting", "median (min–max)", "load",
                                  "ours / PerfTest", "the guides say", "runs", "change", "trend")) + "</tr>"]
    for row in sorted(perf, key=_perf_order):
        cells = (row["broker_key"], row["rule"], row["case"], row["instrument"], row["setting"], _figure_text(row),
                 row["load"], "" if row.get("to_perftest") is None else f"{row['to_perftest']:.2f}",
                 row["claim"] or "", row["runs"], _change_text(row))
        rows.append("<tr class=figure>" + "".join(f"<td>{esc(c)}</td>" for c in cells)
                    + f"<td>{_sparkline(row.get('trend'))}</td></tr>")
    parts.append("".join(rows) + "</table>")
    parts.append("<p class=meta>median (min–max) of the repetitions of the latest run; load: the 1-minute load "
                 "average while measuring; ours / PerfTest: both measured in that run; change: against the "
                 "previous run that measured it; trend: the median of every stored run, oldest first.</p>")
    return "".join(parts)


def perf_markdown(perf: list[dict], charts: list[str]) -> str:
    """perf.md: the charts and, per broker, the suite's figures of its latest run with the
    guides' claim, PerfTest's figure and the ratio, and the trend across runs."""
    lines = ["# PERF figures", "",
             f"Built {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC from the stored runs: the latest run of each "
             "broker that measured each figure; median (min–max) of its repetitions; load is the 1-minute load "
             "average while measuring.", ""]
    lines += [f"![{PERF_CHARTS[name]}](charts/{name})" for name in charts] + [""]
    lines += ["| broker | rule | case | setting | ours | load | PerfTest | ours / PerfTest | the guides say | runs "
              "| change |", "|---" * 11 + "|"]
    for row in sorted((r for r in perf if r["instrument"] == "ours"), key=_perf_order):
        theirs = "" if row.get("perftest_median") is None else _rate(row["perftest_median"])
        ratio_text = "" if row.get("to_perftest") is None else f"{row['to_perftest']:.2f}"
        lines.append(f"| {row['broker_key']} | {row['rule']} | {row['case']} | {row['setting']} | "
                     f"{_figure_text(row)} | {'' if row['load'] is None else row['load']} | {theirs} | {ratio_text} | "
                     f"{row['claim'] or ''} | {row['runs']} | {_change_text(row)} |")
    return "\n".join(lines) + "\n"
