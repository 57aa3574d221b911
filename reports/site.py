"""The static site's pages from Jinja2 templates (reports/templates/): the matrix page
(broker x rule: each rule's outcome from the latest run that ran it, the pass rate over
the build's window, a link to each case in the run that decided the cell; a "differs"
filter), the case-level differences between broker versions, the charts (outcomes per
broker version as its cells show it, the pass rate by week), confirm latency by fault,
safety findings, flaky rules and, when runs hold PERF figures, their charts and table
(also perf.md and charts/*.svg). This module shapes the data and the charts' geometry;
the templates write every element. Plots are inline SVG: the page is one self-contained
file that makes no request. Also the matrix as a Markdown table (matrix.md, for the
README). Colours and outcome classes come from amqp_conformance.fixtures.core.outcomes.SHOWN."""

from __future__ import annotations

import math
from datetime import datetime, timezone
from pathlib import Path

import jinja2

from amqp_conformance.fixtures.core.outcomes import SHOWN, SHOWN_ORDER

from . import cells as rule_cells

_rule_order = rule_cells.rule_order

COLOURS = {str(outcome): shown.colour for outcome, shown in SHOWN.items()}
ORDER = [str(o) for o in SHOWN_ORDER]
LINE_COLOURS = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#4d7c0f", "#be185d"]
TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).resolve().parent / "templates"),
    autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=False, keep_trailing_newline=False)
SAFETY_COLUMNS = ["broker_key", "fault", "runs", "checked_tests", "unjudged_tests", "published", "confirmed",
                  "delivered", "lost",
                  "duplicated", "unflagged_redeliveries", "double_resolutions", "watermark_violations", "recovered",
                  "violations", "unexpected", "lost_seen", "duplicated_seen", "unexpected_seen", "unflagged_seen"]
SAFETY_NOTE = ("lost ... watermark_violations: what the fault layer's history checks held against the broker, "
               "counted only in checks whose case did not pass (a passing case's check, unjudged_tests, ran over a "
               "queue its test need not drain: a message still queued is not lost); violations: their sum. "
               "unexpected (delivered, never published in the history: published outside it) is shown apart and is "
               "no violation; *_seen: counted by the pipeline from every message history itself. The FLT-05 "
               "network profiles (latency-20ms, slicer-6B, ...) each run the same tests, so their rows of one "
               "version hold the same counts unless a fault changed what a test saw; their latencies above differ.")


def _chart(name: str):
    return getattr(TEMPLATES.get_template("charts.svg.j2").module, name)


def render(matrix: list[dict], flaky: list[dict], safety: list[dict], latency: list[dict], runs: list[dict],
           report_link: str | None, problems: list[str], in_report: set[str] | None = None,
           perf: list[dict] | None = None,
           pass_rates: list[dict] | None = None, window: str = "the stored runs",
           catalogue: dict[str, str] | None = None, report_served: bool = False) -> str:
    """in_report: the report ids the Allure report holds; only those cases are linked.
    report_served: the Allure report opens only over HTTP (its data in files), so the page
    says so when it is opened from disk.
    pass_rates: (broker_key, week, runs, mean, lowest, highest) rows (pipeline.pass_rates).
    window: the runs the pass rates cover, as the page names them.
    perf: the PERF figures with their trends (pipeline.perf_trends), for their charts.
    catalogue: every rule with what its row says where no run ran it (default: the
    catalogue's index, amqp_conformance.reports.cells.catalogue): each has a row."""
    brokers = sorted({r["broker_key"] for r in matrix})
    not_run = rule_cells.catalogue() if catalogue is None else catalogue
    rules = sorted({r["rule"] for r in matrix} | set(not_run), key=rule_cells.rule_order)
    link = _linker(report_link, in_report)
    cells = {(r["broker_key"], r["rule"]): _cell(r, link) for r in matrix}
    perf = perf or []
    return TEMPLATES.get_template("index.html.j2").render(
        runs=len(runs), brokers=brokers, rules=rules, built=f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M}",
        report_link=report_link, report_served=report_served and report_link is not None, classes=ORDER, colours=COLOURS, window=window, transports=_latest_transport(runs),
        cells=cells, not_run={rule: not_run.get(rule, "not run") for rule in rules}, differing=rule_cells.differing_rules(matrix), pairs=_pairs(matrix, brokers, link),
        outcomes_chart=outcomes_chart(matrix), pass_rate_chart=pass_rate_chart(pass_rates or []),
        latency_chart=latency_chart(sorted(latency, key=_by_broker_fault)),
        latency=sorted(latency, key=_by_broker_fault),
        latency_columns=["broker_key", "fault", "confirms", "p50_ms", "p90_ms", "p99_ms", "max_ms"],
        safety=sorted(safety, key=_by_broker_fault), safety_columns=[c for c in SAFETY_COLUMNS
                                                                     if not safety or c in safety[0]],
        safety_note=SAFETY_NOTE,
        flaky=sorted(flaky, key=lambda r: (r["broker_key"], rule_cells.rule_order(r["rule"]))),
        flaky_columns=["broker_key", "rule", "runs", "outcomes", "flips", "flip_rate"],
        perf_rows=_perf_rows(perf), perf_columns=PERF_COLUMNS,
        perf_charts=[(PERF_CHARTS[name], svg) for name, svg in perf_charts(perf).items()],
        problems=problems)


def _linker(report_link: str | None, in_report: set[str] | None):
    """The Allure link of a case, or None where the report does not hold it."""
    def link(report_id: str | None) -> str | None:
        if not report_link or not report_id or (in_report is not None and report_id not in in_report):
            return None
        return f"{report_link}#{report_id}"
    return link


def _cell(row: dict, link) -> dict:
    """A matrix cell as the page shows it: the mix, its flags, the pass rate, the links."""
    outcome = row["latest_outcome"]
    rate = row.get("pass_rate")
    return {"outcome": outcome, "run": row["latest_run"], "message": row.get("latest_message") or "",
            "text": rule_cells.mix(row.get("latest_outcomes") or [outcome])
            + (" \u2691" if row.get("known_deviation") else "") + (" *" if row.get("latest_changed") else ""),
            "link": link(row.get("latest_report_id")),
            "rate": _rate_text(outcome, rate, row.get("runs")),
            "cases": [{**case, "link": link(case.get("report_id"))} for case in row.get("latest_case_links") or []]}


def _rate_text(outcome: str, rate: float | None, runs) -> str:
    """The pass rate under a cell. A rule that could not run on the broker (unsupported)
    has no pass rate: "0 %" would read as a rule it fails."""
    if rate is None or outcome == "unsupported":
        return f"– ({runs})" if runs and outcome == "unsupported" else "–"
    return f"{rate * 100:.0f}% ({runs})"


def _pairs(matrix: list[dict], brokers: list[str], link) -> list[dict]:
    """Every pair of broker versions with its case-level differences; the page's two
    selectors show one pair (without a script, every pair shows under its caption)."""
    cases = {b: rule_cells.version_cases(matrix, b) for b in brokers}
    pairs = []
    for i, a in enumerate(brokers):
        for b in brokers[i + 1:]:
            found = rule_cells.differences(cases[a], cases[b])
            pairs.append({"a": a, "b": b, "count": rule_cells.count_text(len(found)), "rows": [
                {"rule": d.rule, "case": d.case, "sides": [
                    {"outcome": side["outcome"], "run": side["run"], "link": link(side.get("report_id"))}
                    for side in (d.a, d.b)]}
                for d in found]})
    return pairs


def _by_broker_fault(row: dict):
    return row["broker_key"], row["fault"]


def _latest_transport(runs: list[dict]) -> dict[str, str | None]:
    """Each broker version's transport (tcp/tls, version, cipher, peer verified, SASL
    mechanism) in its latest run: the run whose outcomes the matrix shows first."""
    latest: dict[str, dict] = {}
    for run in sorted(runs, key=lambda r: (r["started_at"], r["run_id"])):
        latest[run["broker_key"]] = run
    return {key: run.get("transport") for key, run in latest.items()}


# -- the charts' geometry: the templates draw it -------------------------------------------
def outcomes_chart(matrix: list[dict]) -> dict | None:
    """A stacked bar per broker version: its cases by outcome class as its matrix cells show
    them (each rule's cases from the run that decides its cell), never one run's selection."""
    counts: dict[str, dict[str, int]] = {}
    for row in matrix:
        into = counts.setdefault(row["broker_key"], {})
        for case in row.get("latest_case_links") or [{"outcome": o} for o in row.get("latest_outcomes") or []]:
            into[case["outcome"]] = into.get(case["outcome"], 0) + 1
    if not counts:
        return None
    summaries = {broker: ", ".join(f"{by_outcome[o]} {o}" for o in [*ORDER, *sorted(set(by_outcome) - set(ORDER))]
                                   if by_outcome.get(o)) for broker, by_outcome in counts.items()}
    label_w = _text_width(counts, 12) + 12
    text_w = max(_text_width([f"{sum(c.values())} cases: {summaries[b]}" for b, c in counts.items()], 11), 1) + 10
    bars, row_h = max(240, min(600, CHART_WIDTH - label_w - text_w)), 26
    top = max(sum(c.values()) for c in counts.values()) or 1
    rows = []
    for i, (broker, by_outcome) in enumerate(sorted(counts.items())):
        x, drawn = label_w, []
        for outcome in [*ORDER, *sorted(set(by_outcome) - set(ORDER))]:
            n = by_outcome.get(outcome, 0)
            if n:
                drawn.append({"x": x, "w": n / top * bars, "outcome": outcome, "n": n,
                              "colour": COLOURS.get(outcome, "#94a3b8")})
                x += n / top * bars
        rows.append({"broker": broker, "y": 5 + i * row_h, "bars": drawn, "end": x, "cases": sum(by_outcome.values()),
                     "summary": ", ".join(f"{b['n']} {b['outcome']}" for b in drawn)})
    return {"width": label_w + bars + text_w, "height": row_h * len(rows) + 10, "rows": rows}


def pass_rate_chart(pass_rates: list[dict]) -> dict | None:
    """One line per broker version over the weeks (pipeline.pass_rates): a point per week,
    whatever the number of runs in it, and a band from its lowest to its highest run."""
    if not pass_rates:
        return None
    weeks = sorted({_week(r["week"]) for r in pass_rates})
    left, top, height = 40, 10, 180
    width = max(320, 16 * len(weeks))
    step = width / max(len(weeks) - 1, 1)
    x_of = {w: left + i * step for i, w in enumerate(weeks)}

    def y(rate: float) -> float:
        return top + (1 - (rate or 0)) * height
    lines = []
    for b, broker in enumerate(sorted({r["broker_key"] for r in pass_rates})):
        rows = sorted((r for r in pass_rates if r["broker_key"] == broker), key=lambda r: _week(r["week"]))
        points = [{"x": x_of[_week(r["week"])], "y": y(r["mean"]), "week": _week(r["week"]), "runs": r["runs"],
                   "mean": r["mean"] or 0, "lowest": r["lowest"] or 0, "highest": r["highest"] or 0} for r in rows]
        band = " ".join(f"{p['x']:.1f},{y(p['highest']):.1f}" for p in points) + " " + " ".join(
            f"{p['x']:.1f},{y(p['lowest']):.1f}" for p in reversed(points)) if len(points) > 1 else ""
        lines.append({"broker": broker, "colour": LINE_COLOURS[b % len(LINE_COLOURS)], "points": points,
                      "band": band})
    every = max(1, len(weeks) // 8)  # at most about eight labels on the axis
    return {"left": left, "top": top, "bottom": top + height, "right": left + width, "width": left + width + 240,
            "height": height + 40, "lines": lines,
            "ticks": [{"x": x_of[w], "text": w} for i, w in enumerate(weeks) if i % every == 0]}


def _week(value) -> str:
    return value.strftime("%Y-%m-%d") if isinstance(value, datetime) else str(value)[:10]


def latency_chart(latency: list[dict]) -> dict | None:
    if not latency:
        return None
    top = max(r["p99_ms"] or 0 for r in latency) or 1
    texts = [f"p50 {r['p50_ms']} / p90 {r['p90_ms']} / p99 {r['p99_ms']} ms ({r['confirms']} confirms)" for r in latency]
    labels = [f"{r['broker_key']} / {r['fault']}" for r in latency]
    text_w = _text_width(texts, 10) + 10
    bars = max(240, min(540, CHART_WIDTH - text_w))
    # Each row: its label on a line of its own above its bars (a long broker and fault
    # name never runs under them), the figures right of the longest bar.
    rows = [{"y": 4 + i * LATENCY_ROW, "label": label,
             "bars": [{"name": p[:-3], "ms": r[p], "w": (r[p] or 0) / top * bars, "colour": colour}
                      for p, colour in (("p99_ms", "#fca5a5"), ("p90_ms", "#f87171"), ("p50_ms", "#b91c1c"))],
             "text": text}
            for i, (r, label, text) in enumerate(zip(latency, labels, texts))]
    return {"width": max(bars + text_w, _text_width(labels, 11)) + 4, "height": LATENCY_ROW * len(rows) + 8,
            "rows": rows, "text_x": bars + 8}


CHART_WIDTH = 1100  # the widest a chart is drawn: inside the page's column at a 1280 px window
LATENCY_ROW = 38


def _text_width(texts, font_px: float) -> float:
    """An upper estimate of the width of the longest text at `font_px` (system-ui: no
    glyph is wider than 0.62 em apart from W and M, which are rare here)."""
    return max((len(str(t)) for t in texts), default=0) * font_px * 0.62


def markdown_cell(cell: dict) -> str:
    """The rule's outcome and the mix of its cases in the latest run, as on the page
    (amqp_conformance.reports.cells.mix); `*` when the baseline did not expect it."""
    return rule_cells.mix(cell.get("latest_outcomes") or [cell["latest_outcome"]]) + (
        " *" if cell.get("latest_changed") else "")


def markdown(matrix: list[dict], catalogue: dict[str, str] | None = None) -> str:
    """The rule x broker table in Markdown (matrix.md; the README shows it), one column per
    broker version, each cell from the rule's cases in that broker's latest run. Every
    catalogued rule has a row, as on the page: one no stored run ran says so in each cell
    ("not run", or "not run (-m perf)"); `catalogue` as for page()."""
    brokers = sorted({r["broker_key"] for r in matrix})
    not_run = rule_cells.catalogue() if catalogue is None else catalogue
    cells = {(r["broker_key"], r["rule"]): r for r in matrix}
    ran = {r["rule"] for r in matrix}
    lines = ["| rule | " + " | ".join(brokers) + " |", "|---" * (len(brokers) + 1) + "|"]
    for rule_id in sorted(ran | set(not_run), key=_rule_order):
        row = []
        for broker in brokers:
            cell = cells.get((broker, rule_id))
            row.append(not_run[rule_id] if rule_id not in ran else "–" if cell is None else markdown_cell(cell))
        lines.append(f"| {rule_id} | " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


# -- PERF figures: the charts, the table with trends, perf.md ------------------------------
PERF_CHARTS = {"perf-throughput.svg": "Throughput by mode per broker (PERF-01)",
               "perf-prefetch.svg": "Consume rate by prefetch, direct and through latency (PERF-02)"}
PERF_COLUMNS = ("broker", "rule", "case", "instrument", "setting", "median (min–max)", "load", "ours / PerfTest",
                "the guides say", "runs", "change", "trend")


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
            path.write_text(str(charts[name]))
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
    panels = []
    for p, case in enumerate(cases):
        top = p * panel_h + 18
        groups = []
        for s, setting in enumerate(settings):
            y0, bars = top + s * group_h, []
            for b, broker in enumerate(brokers):
                row, y = cell.get((case, setting, broker)), y0 + b * bar_h
                if row is None:
                    continue
                if row["unsupported"] or row["median"] is None:
                    bars.append({"broker": broker, "y": y, "unsupported": True,
                                 "why": row["unsupported"] or "not measured"})
                    continue
                bars.append({"broker": broker, "y": y, "unsupported": False, "w": max(at(row["median"]), 1),
                             "colour": colours[broker], "median": row["median"], "rate": _rate(row["median"]),
                             "low": _rate(row["min"]), "high": _rate(row["max"]), "load": row["load"],
                             "tick": label_w + at(row["perftest_median"]) if row["perftest_median"] else None,
                             "tick_rate": _rate(row["perftest_median"])})
            groups.append({"setting": setting, "label_y": y0 + group_h / 2 + 2, "bars": bars})
        bottom = top + group_h * len(settings)
        panels.append({"case": case, "top": top, "bottom": bottom, "groups": groups,
                       "decades": [{"x": label_w + at(d), "text": _rate(d)} for d in decades]})
    return _chart("throughput")({"width": label_w + plot_w + legend_w, "height": panel_h * len(cases) + 10,
                                 "label_w": label_w, "bar_h": bar_h, "panels": panels,
                                 "colours": list(colours.items()), "legend_x": label_w + plot_w + 20})


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
    dashes = {case: ("" if c == 0 else "6 4") for c, case in enumerate(cases)}
    curves = []
    for broker, colour in colours.items():
        for case in cases:
            points = sorted(({"x": left + settings.index(r["setting"]) * step, "y": top + plot_h - at(r["median"]),
                              "setting": r["setting"], "median": r["median"], "rate": _rate(r["median"]),
                              "low": _rate(r["min"]), "high": _rate(r["max"]), "load": r["load"]}
                             for r in rows if r["broker_key"] == broker and r["case"] == case), key=lambda p: p["x"])
            for point in points:
                point["xy"] = f"{point['x']:.1f},{point['y']:.1f}"
            curves.append({"broker": broker, "case": case, "colour": colour, "dash": dashes[case], "points": points})
    return _chart("prefetch")({
        "width": left + plot_w + legend_w, "height": top + plot_h + 40, "left": left, "top": top, "plot_w": plot_w,
        "plot_h": plot_h, "decades": [{"y": top + plot_h - at(d), "text": _rate(d)} for d in decades],
        "settings": [{"x": left + i * step, "text": s} for i, s in enumerate(settings)], "curves": curves,
        "colours": list(colours.items()), "legend_x": left + plot_w + 20,
        "styles": [(dashes[c] or "solid", c) for c in cases]})


def _sparkline(trend: list[float] | None) -> str:
    """The figure's medians over the stored runs, oldest first, as polyline points (none
    for one run)."""
    values = [v for v in trend or [] if v is not None]
    if len(values) < 2:
        return ""
    low, high = min(values), max(values)
    span = (high - low) or 1
    return " ".join(f"{2 + i * 76 / (len(values) - 1):.1f},{16 - (v - low) / span * 14:.1f}"
                    for i, v in enumerate(values))


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


def _perf_rows(perf: list[dict]) -> list[dict]:
    """The matrix page's PERF table: the figures of the latest run of each broker with their trend."""
    return [{"cells": (row["broker_key"], row["rule"], row["case"], row["instrument"], row["setting"],
                       _figure_text(row), row["load"],
                       "" if row.get("to_perftest") is None else f"{row['to_perftest']:.2f}", row["claim"] or "",
                       row["runs"], _change_text(row)),
             "spark": _sparkline(row.get("trend"))} for row in sorted(perf, key=_perf_order)]


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
