"""The matrix page's charts read whole at the width a browser gives them: headless
Chromium at 1280 px, every label and figure of the outcome and latency charts inside its
chart and the window, over no bar and no other label. The latency chart's labels ran under
its bars (drawn from x = 260 whatever their length) and its figures past its 1150 px edge.
A page built from hand-made rows (the long names real broker versions and fault profiles
have), so no broker or Spark build is needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from amqp_conformance.reports import site

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]
BROKERS = ("RabbitMQ 4.0.5", "RabbitMQ 3.10.8 cluster", "garagemq 0.0~git20200204.15e6a9d+ds-4+b6")
FAULTS = ("none", "toxiproxy latency 20 ms with jitter 5 ms", "reset-peer mid-frame after 4096 bytes",
          "bandwidth 64 KB/s and a slicer of 1-17 bytes")

# Every text of the chart, its box against the chart's, the window's, its bars' and the other texts'.
LAYOUT = """(selector) => {
  const svg = document.querySelector(selector);
  const box = (e) => { const r = e.getBoundingClientRect(); return {l: r.left, r: r.right, t: r.top, b: r.bottom}; };
  const texts = [...svg.querySelectorAll('text')].map(t => ({text: t.textContent, ...box(t)}));
  const bars = [...svg.querySelectorAll('rect')].filter(r => r.getBoundingClientRect().width > 0).map(box);
  return {svg: box(svg), window: document.documentElement.clientWidth, texts, bars};
}"""


def matrix_rows() -> list[dict]:
    rows = []
    for i, broker in enumerate(BROKERS):
        outcomes = ["pass"] * (300 + 40 * i) + ["fail"] * (3 + i) + ["non-strict"] * 7 + ["info"] * 21 + \
                   ["unsupported"] * (9 + 30 * i)
        rows.append({"broker_key": broker, "rule": "ACK-04", "latest_outcome": "fail", "latest_run": "r1",
                     "latest_outcomes": outcomes, "pass_rate": 0.9, "runs": 3, "latest_report_id": None,
                     "latest_case_links": [{"name": f"ACK-04[{n}]", "outcome": o, "report_id": None}
                                           for n, o in enumerate(outcomes)]})
    return rows


def latency_rows() -> list[dict]:
    return [{"broker_key": broker, "fault": fault, "confirms": 12000 + k, "p50_ms": 3.1 * (k + 1),
             "p90_ms": 17.5 * (k + 1), "p99_ms": 402.25 * (k + 1), "max_ms": 1000.0}
            for broker in BROKERS for k, fault in enumerate(FAULTS)]


def overlaps(a: dict, b: dict, slack: float = 0.5) -> bool:
    return a["l"] < b["r"] - slack and b["l"] < a["r"] - slack and a["t"] < b["b"] - slack and b["t"] < a["b"] - slack


@pytest.fixture
def page_at_1280(tmp_path):
    from playwright.sync_api import sync_playwright
    assert Path(CHROMIUM).exists(), "Debian chromium is missing: ci/setup installs it"
    html = tmp_path / "index.html"
    html.write_text(site.render(matrix_rows(), [], [], latency_rows(), [], None, []))
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            page = chromium.new_page(viewport={"width": 1280, "height": 900})
            page.goto(html.as_uri())
            yield page, tmp_path
        finally:
            chromium.close()


@pytest.mark.parametrize("chart", ["#chart-latency", "#chart-outcomes-per-broker"])
def test_every_label_of_the_chart_is_whole_at_1280_px(page_at_1280, chart):
    page, folder = page_at_1280
    layout = page.evaluate(LAYOUT, chart)
    assert layout["texts"], f"{chart} drew no text"
    edge = min(layout["svg"]["r"], layout["window"])
    problems = []
    for i, text in enumerate(layout["texts"]):
        if text["r"] > edge + 0.5 or text["l"] < layout["svg"]["l"] - 0.5:
            problems.append(f"{text['text']!r} is cut: it spans {text['l']:.0f}-{text['r']:.0f} px, the chart "
                            f"{layout['svg']['l']:.0f}-{layout['svg']['r']:.0f} px in a {layout['window']} px window")
        if any(overlaps(text, bar) for bar in layout["bars"]):
            problems.append(f"{text['text']!r} runs under a bar")
        problems += [f"{text['text']!r} overlaps {other['text']!r}"
                     for other in layout["texts"][i + 1:] if overlaps(text, other)]
    page.locator(chart).screenshot(path=str(folder / f"{chart[1:]}.png"))
    assert not problems, "\n".join(problems[:10]) + f"\n(screenshot: {folder / chart[1:]}.png)"
