"""End to end: a real suite run stores itself, `python -m reports build` turns it into the
matrix page and the Allure report, and headless Chromium finds the failed rule in it."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reports import allure_report
from tests.suite_runs import REPO, run_suite

# A suite run, a Spark build and a browser: more than the suite-wide 60 s backstop when loaded.
pytestmark = [pytest.mark.integration, pytest.mark.timeout(420)]
SCREENSHOTS = REPO / "reports" / "site" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """garagemq breaks RD-02 (requeued deliveries without redelivered=true) and keeps PC-02;
    a stand-in baseline marks RD-02 as a known deviation."""
    run_dir = tmp_path_factory.mktemp("run")
    suite = run_suite(run_dir, "--broker", "garagemq", "-k", "rd_02 or pc_02", "-m", "not fault", "--no-baseline", "--run-dir", str(run_dir),
                      "-p", "tests.deviation_baseline_plugin")
    assert (run_dir / "manifest.json").exists(), suite.output[-3000:]
    site = run_dir / "site"
    done = subprocess.run([sys.executable, "-m", "reports", "build", str(run_dir), "--out", str(site)],
                          cwd=REPO, capture_output=True, text=True, timeout=400)
    assert done.returncode == 0, done.stdout + done.stderr[-4000:]
    return run_dir, site, suite, done.stdout


def test_the_run_stores_its_manifest_without_credentials(built):
    run_dir, _, suite, _ = built
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["broker"] == "garagemq" and manifest["allure_results"] == "allure"
    assert manifest["outcomes"]["fail"] == sum(1 for c in suite.cases if c.outcome == "fail") == 2
    assert manifest["outcomes"]["pass"] == 1
    assert manifest["outcomes"]["deviation"] == 2  # both RD-02 cases; their verdicts stay "fail"
    assert all(c.properties.get("deviation", "").startswith("baseline:") for c in suite.cases
               if c.properties["rule"] == "RD-02")
    assert ":***@" in manifest["target"]
    for name in ("environment.properties", "executor.json", "categories.json"):
        assert (run_dir / "allure" / name).exists(), name
    assert "broker=garagemq" in (run_dir / "allure" / "environment.properties").read_text()


def test_the_matrix_contains_the_runs_rules(built):
    _, site, suite, stdout = built
    assert "1 runs" in stdout
    rows = {(r["broker_key"], r["rule"]): r for r in csv.DictReader(open(site / "matrix.csv"))}
    assert rows[("garagemq 0.1", "RD-02")]["latest_outcome"] == "fail"
    assert rows[("garagemq 0.1", "PC-02")]["latest_outcome"] == "pass"
    assert {rule for _, rule in rows} == {c.properties["rule"] for c in suite.cases}
    page = (site / "index.html").read_text()
    assert "data-rule='RD-02' data-broker='garagemq 0.1' data-outcome='fail'" in page
    assert rows[("garagemq 0.1", "RD-02")]["known_deviation"] == "True"
    assert (site / "allure" / "index.html").exists()
    assert "googletagmanager" not in (site / "allure" / "index.html").read_text()


def test_pipeline_history_keys_are_the_ones_allure_writes(built):
    run_dir, site, _, _ = built
    # Allure appends the point of the report it generated; its keys must be ours.
    appended = json.loads((site / "allure-history.jsonl").read_text().splitlines()[-1])
    ours = {allure_report.history_id(json.loads(p.read_text())) for p in (run_dir / "allure").glob("*-result.json")}
    assert set(appended["testResults"]) == ours


def test_browser_finds_the_failed_rule_with_expected_and_actual(built, tmp_path):
    _, site, _, _ = built
    from playwright.sync_api import sync_playwright
    assert Path(CHROMIUM).exists(), "Debian chromium is missing: ci/setup installs it"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    outside: list[str] = []

    def local_only(route):
        url = route.request.url
        if url.startswith(("file:", "data:", "blob:")):
            route.continue_()
        else:
            outside.append(url)
            route.abort()

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=[*CHROMIUM_FLAGS, "--disable-quic"])
        try:
            context = browser.new_context(viewport={"width": 1300, "height": 900})
            context.route("**/*", local_only)
            page = context.new_page()
            page.set_default_timeout(20000)
            page.goto((site / "index.html").as_uri())
            cell = page.locator("td.cell[data-rule='RD-02'][data-broker='garagemq 0.1']")
            assert cell.get_attribute("data-outcome") == "fail"
            page.screenshot(path=str(SCREENSHOTS / "matrix.png"), full_page=True)
            cell.locator("a").click()
            page.wait_for_url("**/allure/index.html#*")
            error = page.get_by_text("requeued deliveries carry redelivered=true").first
            error.wait_for()
            text = page.locator("body").inner_text()
            assert "expected: redelivered=true for all" in text
            assert "actual:" in text and "False" in text
            assert "RD-02" in text
            # grouped under the baseline's known deviation, not as a plain failure
            assert "Category: Known deviation (baseline)" in text
            assert "known deviation: baseline: garagemq requeues without redelivered=true" in text
            page.screenshot(path=str(SCREENSHOTS / "allure-failed-rule.png"))
            shutil.copy(SCREENSHOTS / "allure-failed-rule.png", tmp_path / "allure-failed-rule.png")
        finally:
            browser.close()
    assert (SCREENSHOTS / "allure-failed-rule.png").stat().st_size > 10000
