"""Benchmark (not a test): how long a case linked from the matrix takes to show in the
Allure report, in headless Chromium on this machine, per layout.

    python -m amqp_conformance.reports open-bench [SITE ...] [--cases 5] [--rounds 3]

Each SITE is a built site (default reports/site). Its matrix page's case links are read,
`--cases` of them picked evenly; each round opens each picked link in a fresh page and
times it from the navigation to the case's full name on screen. A site whose Allure
report keeps its data in files is opened through `reports serve` (over HTTP, as a reader
opens it); a one-file report from disk. Rounds go over the sites in turn (A B A B ...) so
the machine's drift spreads over both. Prints a Markdown table: per site, its layout, its
size, and the minimum, median and maximum seconds, with the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
from pathlib import Path

from . import serve

CASE_LINK = re.compile(r"href='(allure/index\.html#[0-9a-f]{32})'")
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]
SHOWN_WITHIN_S = 120  # a bound on one opening, so a broken report ends the benchmark instead of hanging it


def layout_of(site: Path) -> str:
    return "files" if (site / "allure" / "data").is_dir() else "single"


def size_mb(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 1e6


def picked_links(site: Path, count: int) -> list[str]:
    links = sorted(set(CASE_LINK.findall((site / "index.html").read_text())))
    if not links:
        raise SystemExit(f"[reports] {site}/index.html links to no Allure case: build it with the Allure report")
    step = max(len(links) // count, 1)
    return links[::step][:count]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m amqp_conformance.reports open-bench",
                                     description="Time a case linked from the matrix until it shows in Chromium.")
    parser.add_argument("sites", nargs="*", type=Path, default=[serve.HERE / "site"], metavar="SITE")
    parser.add_argument("--cases", type=int, default=5, help="case links opened per round (default: 5)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds over every site (default: 3)")
    args = parser.parse_args(argv)
    for site in args.sites:
        if not (site / "allure" / "index.html").is_file():
            print(f"[reports] no Allure report in {site}: run `python -m amqp_conformance.reports build` first",
                  file=sys.stderr)
            return 2
    from playwright.sync_api import sync_playwright

    servers = {}
    for site in args.sites:
        if layout_of(site) == "files":
            servers[site] = serve.server(site.resolve(), 0)
            serve.in_background(servers[site])
    timings: dict[Path, list[float]] = {site: [] for site in args.sites}
    load_before = os.getloadavg()[0]
    try:
        with sync_playwright() as p:
            chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
            try:
                for _ in range(args.rounds):
                    for site in args.sites:
                        base = serve.url_of(servers[site]) if site in servers else site.resolve().as_uri() + "/"
                        for link in picked_links(site, args.cases):
                            page = chromium.new_page(viewport={"width": 1300, "height": 900})
                            started = time.monotonic()
                            page.goto(base + link)
                            page.locator("[data-testid=test-result-fullname]").first.wait_for(
                                timeout=SHOWN_WITHIN_S * 1000)
                            timings[site].append(time.monotonic() - started)
                            page.close()
            finally:
                chromium.close()
    finally:
        for httpd in servers.values():
            httpd.shutdown()
            httpd.server_close()
    load_after = os.getloadavg()[0]
    print("| site | layout | size (MB) | openings | min (s) | median (s) | max (s) |")
    print("|---|---|---|---|---|---|---|")
    for site, seconds in timings.items():
        print(f"| {site} | {layout_of(site)} | {size_mb(site / 'allure'):.1f} | {len(seconds)} | {min(seconds):.2f} "
              f"| {statistics.median(seconds):.2f} | {max(seconds):.2f} |")
    print(f"\nload average (1 min) {load_before:.1f} before, {load_after:.1f} after")
    return 0
