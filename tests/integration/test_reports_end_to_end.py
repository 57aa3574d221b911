"""End to end: real `ci/suite` runs store themselves (two on garagemq, one on RabbitMQ
3.10.8, then a narrow run on each version that reruns one rule), `python -m amqp_conformance.reports build`
(the command ci/github-actions.yml runs) turns them into the matrix page and the Allure
report, and headless Chromium checks what a reader sees there: every cell and every
difference links to its case in the run that decided it, and JUnit, Allure and the
matrix give every case the same class."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

from amqp_conformance.fixtures.core.outcomes import KNOWN, CaseResult, junit_element, shown
from amqp_conformance.reports import allure_report, serve
from amqp_conformance.reports.cells import count_text
from tests.suite_runs import REPO, node_args

# Four suite runs, a Spark build and a browser: minutes on a 2-core machine, and over ten
# when eight other sessions load it (the Spark build alone took more than 10 min at load 24).
pytestmark = [pytest.mark.integration, pytest.mark.timeout(2400)]
SCREENSHOTS = REPO / "reports" / "site" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
RUNS = ("run-1", "run-2")
# garagemq breaks RD-02 (requeued deliveries without redelivered=true) and keeps PC-02;
# PC-02 also runs as FLT-05 copies (one per network profile), each its own case. The slicer
# copy is left out: garagemq reads the protocol header with one read and refuses it in two
# writes (its baseline's FLT-05 entries), so that copy fails there, and this test needs a
# rule garagemq keeps.
SELECTION = ["--broker", "garagemq", "-k", "(rd_02 or pc_02) and not flt05-slicer", "--no-baseline", "-p", "tests.integration.deviation_baseline_plugin"]
# RabbitMQ 3.10.8 passes RD-02 and PC-02 too, and has CON-10's global-timeout cases but not
# its per-queue ways (unsupported before 3.12): a rule whose cases disagree, and a second
# broker version for the "differs" view. QOS-10's raise of a per-consumer prefetch is
# non-strict there. Checked against its own baseline. Judged on the worker's plain node
# (3.10.8, tests/conftest.py) at its URL: two node boots fewer in a CPU-bound ci/test.
RABBITMQ_RUN, RABBITMQ = "run-3", "RabbitMQ 3.10.8"
RABBITMQ_SELECTION = ["-k", "rd_02 or pc_02 or CON-10 or (raising_the_prefetch and not flt05)"]
GARAGEMQ = "garagemq 0.1"
# Later narrow runs, one per version, each rerunning one rule: they decide that rule's cell,
# and the cells of the other rules stay with the runs before them.
NARROW = {"run-4": ["--broker", "garagemq", "-k", "pc_02 and not flt05", "--no-baseline"],
          "run-5": ["-k", "rd_02 and not flt05"]}  # on the plain node, as run-3
ORDER = (*RUNS, RABBITMQ_RUN, *NARROW)  # the order the runs were made in
VERSION_OF = {"run-1": GARAGEMQ, "run-2": GARAGEMQ, "run-3": RABBITMQ, "run-4": GARAGEMQ, "run-5": RABBITMQ}


def suite_command(selection=SELECTION) -> list[str]:
    return ["ci/suite", *selection]


def build_command(runs: Path, site: Path) -> list[str]:
    return [".venv/bin/python", "-m", "amqp_conformance.reports", "build", str(runs), "--out", str(site)]


@pytest.fixture(scope="module")
def built(tmp_path_factory, plain_rabbitmq):
    """A stand-in baseline marks RD-02 as a known deviation."""
    root = tmp_path_factory.mktemp("reports")
    runs, site = root / "runs", root / "site"
    env = {k: v for k, v in os.environ.items() if not k.startswith("AMQP_")}
    outputs = {}
    for run_id, selection in [*((r, SELECTION) for r in RUNS), (RABBITMQ_RUN, RABBITMQ_SELECTION),
                              *NARROW.items()]:
        if VERSION_OF[run_id] == RABBITMQ:
            selection = [*node_args(plain_rabbitmq, baseline=True), *selection]
        done = subprocess.run(suite_command(selection), cwd=REPO, capture_output=True, text=True, timeout=300,
                              env={**env, "AMQP_RUNS_DIR": str(runs), "AMQP_RUN_ID": run_id})
        outputs[run_id] = done.stdout + done.stderr
        assert (runs / run_id / "manifest.json").exists(), outputs[run_id][-3000:]
    assert "0 changes" in outputs[RABBITMQ_RUN], outputs[RABBITMQ_RUN][-3000:]
    done = subprocess.run(build_command(runs, site), cwd=REPO, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout + done.stderr[-4000:]
    return runs, site, outputs, done.stdout


def cases(run_dir: Path) -> list[dict[str, str]]:
    return [{p.get("name"): p.get("value") for p in case.iter("property")}
            for case in ET.parse(run_dir / "junit.xml").getroot().iter("testcase")]


def results(run_dir: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in (run_dir / "allure-results").glob("*-result.json")]


def records(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def deciding(runs: Path) -> dict[tuple[str, str], str]:
    """(broker version, rule) -> the run that decides its cell: the latest that ran the rule."""
    found = {}
    for run_id in ORDER:
        for record in records(runs / run_id):
            found[(VERSION_OF[run_id], record["rule"])] = run_id
    return found


def final_results(run_dir: Path) -> list[dict]:
    """The Allure result of each case's record: a case rerun (issue 35) also left a result
    per earlier attempt, with the same history key (Allure shows them as its retries)."""
    final = {record["allure"]["uuid"] for record in records(run_dir)}
    return [r for r in results(run_dir) if r["uuid"] in final]


def deciding_results(runs: Path) -> dict[str, dict]:
    """report id -> Allure result, of every case the report must hold: each rule's cases
    from the run that decides its cell."""
    decided = deciding(runs)
    held = {}
    for run_id in ORDER:
        for r in final_results(runs / run_id):
            rule = next(label["value"] for label in r["labels"] if label["name"] == "rule")
            if decided[(VERSION_OF[run_id], rule)] == run_id:
                held[allure_report.report_id(r)] = {**r, "run": run_id, "rule": rule}
    return held


def test_the_run_stores_its_manifest_without_credentials(built):
    runs, _, _, _ = built
    run_dir = runs / RUNS[-1]
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["broker"] == "garagemq" and manifest["allure_results"] == "allure-results"
    rd_02 = [c for c in cases(run_dir) if c["rule"] == "RD-02"]
    assert manifest["outcomes"]["fail"] == len(rd_02) == 6
    assert manifest["outcomes"]["pass"] == 4  # PC-02 and its three FLT-05 copies
    assert manifest["outcomes"]["deviation"] == 6  # the RD-02 cases; their verdicts stay "fail"
    # known deviations, with the baseline's reason beside them (the JUnit file's properties)
    assert all(c.get("deviation") == KNOWN and c.get("deviation_reason") for c in rd_02)
    assert ":***@" in manifest["target"]
    for name in ("environment.properties", "executor.json", "categories.json"):
        assert (run_dir / "allure-results" / name).exists(), name
    assert "broker=garagemq" in (run_dir / "allure-results" / "environment.properties").read_text()


def test_every_run_stores_one_record_per_case_whatever_the_workers(built):
    """results.jsonl holds one record a case (the runs use xdist workers; the controller
    writes), the same outcome JUnit shows, and the RD-02 failures' expected and actual."""
    runs, _, _, _ = built
    for run_id in (*RUNS, RABBITMQ_RUN):
        records = [json.loads(line) for line in (runs / run_id / "results.jsonl").read_text().splitlines()]
        shown = cases(runs / run_id)
        assert len(records) == len(shown) == len({r["nodeid"] for r in records}), run_id
        assert sorted(r["outcome"] for r in records) == sorted(c["outcome"] for c in shown), run_id
    failed = [r for r in map(json.loads, (runs / RUNS[-1] / "results.jsonl").read_text().splitlines())
              if r["rule"] == "RD-02"]
    assert failed and all(r["outcome"] == "fail" and r["expected"] and r["actual"] for r in failed)
    assert all(any(name.startswith("reproducer ") for name in r["attachments"]) for r in failed)


def test_each_case_is_its_own_allure_test_with_the_same_key_in_every_run(built):
    runs, _, _, _ = built
    keys, history_ids = {}, {}
    for run_id in RUNS:
        found = final_results(runs / run_id)
        assert len(found) == len(cases(runs / run_id)) == 10
        # any other result is an earlier attempt of a rerun case: the same key, a retry
        assert {r["historyId"] for r in results(runs / run_id)} == {r["historyId"] for r in found}
        keys[run_id] = {allure_report.history_id(r) for r in found}  # what Allure 3 keys tests by
        history_ids[run_id] = {r["historyId"] for r in found}
        assert len(keys[run_id]) == len(history_ids[run_id]) == len(found), "two cases share a key"
        for r in found:
            params = {p["name"]: p for p in r.get("parameters", [])}
            # parameters are the case's own: nothing observed, nothing hidden from the key
            assert not any(p.get("excluded") for p in params.values()), r["name"]
            assert not any(" at 0x" in p["value"] for p in params.values()), r["name"]
            profile = re.search(r"flt05-(\w+)", r["name"])
            assert (params.get("fault profile", {}).get("value") == repr(profile[1])) if profile \
                else "fault profile" not in params, r["name"]
            labels = [label["value"] for label in r["labels"] if label["name"] == "deviation"]
            assert labels == (["known"] if "rd_02" in r["fullName"] else []), r["name"]
            assert "known deviation: known" not in json.dumps(r)
    assert keys[RUNS[0]] == keys[RUNS[1]] and history_ids[RUNS[0]] == history_ids[RUNS[1]]


def con_10_mix(runs: Path) -> str:
    """CON-10's cell on RabbitMQ 3.10.8 as the run's own JUnit file has it."""
    outcomes = [c["outcome"] for c in cases(runs / RABBITMQ_RUN) if c["rule"] == "CON-10"]
    unsupported = outcomes.count("unsupported")
    assert outcomes.count("pass") >= 1 and 1 <= unsupported < len(outcomes), outcomes
    assert set(outcomes) == {"pass", "unsupported"}, outcomes
    return f"pass · {unsupported} of {len(outcomes)} unsupported"


def test_one_matrix_page_and_table_from_the_stored_runs(built):
    runs, site, _, stdout = built
    assert f"{len(ORDER)} runs" in stdout
    rows = {(r["broker_key"], r["rule"]): r for r in csv.DictReader(open(site / "matrix.csv"))}
    assert set(rows) == {(GARAGEMQ, "RD-02"), (GARAGEMQ, "PC-02"),
                         (RABBITMQ, "RD-02"), (RABBITMQ, "PC-02"), (RABBITMQ, "CON-10"), (RABBITMQ, "QOS-10")}
    assert rows[(RABBITMQ, "QOS-10")]["latest_outcome"] == "non-strict"
    assert rows[(GARAGEMQ, "RD-02")]["latest_outcome"] == "fail"
    assert rows[(GARAGEMQ, "RD-02")]["known_deviation"] == "True"
    assert rows[(GARAGEMQ, "PC-02")]["latest_outcome"] == "pass"
    assert rows[(GARAGEMQ, "PC-02")]["runs"] == "3" and rows[(GARAGEMQ, "PC-02")]["latest_run"] == "run-4"
    assert rows[(GARAGEMQ, "RD-02")]["latest_run"] == "run-2"  # run-4 did not rerun it
    # a rule with a passing case is checked: pass, whatever its other ways could not run
    assert rows[(RABBITMQ, "CON-10")]["latest_outcome"] == "pass" and rows[(RABBITMQ, "CON-10")]["pass_rate"] == "1.0"
    table = (site / "matrix.md").read_text().splitlines()
    assert table[0] == f"| rule | {RABBITMQ} | {GARAGEMQ} |"
    assert "| PC-02 | pass | pass |" in table and "| RD-02 | pass | fail |" in table
    assert f"| CON-10 | {con_10_mix(runs)} | – |" in table
    assert not (REPO / "reports" / "broker_matrix.py").exists()
    assert "googletagmanager" not in (site / "allure" / "index.html").read_text()


def test_pipeline_history_keys_are_the_ones_allure_writes(built):
    runs, site, _, _ = built
    lines = [json.loads(line) for line in (site / "allure-history.jsonl").read_text().splitlines()]
    # run-1 decides no cell: the pipeline's one history point; then the point Allure
    # appended for the report (each rule's cases from its deciding run)
    assert len(lines) == 2
    assert set(lines[0]["testResults"]) == {allure_report.history_id(r) for r in final_results(runs / RUNS[0])}
    assert set(lines[-1]["testResults"]) == {allure_report.history_id(r) for r in deciding_results(runs).values()}


@pytest.fixture(scope="module")
def served(built):
    """The built site over HTTP, as `reports serve` gives it: the default Allure layout
    keeps its data in files, which a browser fetches only from a web server."""
    _, site, _, _ = built
    httpd = serve.server(site, 0)
    serve.in_background(httpd)
    yield serve.url_of(httpd)
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def browser(served):
    from playwright.sync_api import sync_playwright
    assert Path(CHROMIUM).exists(), "Debian chromium is missing: ci/setup installs it"
    outside: list[str] = []

    def local_only(route):
        url = route.request.url
        if url.startswith(("file:", "data:", "blob:", served)):
            route.continue_()
        else:
            outside.append(url)
            route.abort()

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            context = chromium.new_context(viewport={"width": 1300, "height": 900})
            context.route("**/*", local_only)
            page = context.new_page()
            page.set_default_timeout(30000)
            yield page
        finally:
            chromium.close()
    assert outside == [], "the pages made requests outside the site"


def test_the_allure_report_lists_every_case_of_the_run(built, served, browser):
    runs, site, _, _ = built
    # the default layout: the page, and each case's data in a file of its own beside it
    assert (site / "allure" / "data" / "test-results").is_dir()
    browser.goto(served + "allure/index.html")
    total = browser.locator("[data-testid=metadata-item-total]").first
    total.wait_for(timeout=180000)  # generous: the machine may be loaded
    shown = int(re.search(r"\d+", total.inner_text())[0])
    # the report holds each rule's cases from the run that decides its cell
    assert shown == len(deciding_results(runs))
    assert len(cases(runs / RUNS[-1])) == 10
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    browser.screenshot(path=str(SCREENSHOTS / "allure-overview.png"))


def test_the_matrix_page_opened_from_disk_says_its_report_needs_a_server(built, served, browser):
    _, site, _, _ = built
    browser.goto((site / "index.html").as_uri())
    assert browser.locator("#needs-server").is_visible()
    assert "reports serve" in browser.locator("#needs-server").inner_text()
    browser.goto(served + "index.html")
    assert browser.locator("#needs-server").is_hidden()


def test_a_failed_case_shows_expected_actual_frames_and_reproducer(built, served, browser):
    runs, site, _, _ = built
    browser.goto(served + "index.html")
    cell = browser.locator("td.cell[data-rule='RD-02'][data-broker='garagemq 0.1']")
    assert cell.get_attribute("data-outcome") == "fail"
    cell.locator("a.decides").click()
    browser.wait_for_url("**/allure/index.html#*")
    browser.get_by_text("requeued deliveries carry redelivered=true").first.wait_for()
    text = browser.locator("body").inner_text()
    assert "expected: redelivered=true for all" in text
    assert "actual:" in text and "False" in text
    assert "RD-02" in text
    # grouped under the baseline's known deviation, not as a plain failure
    assert "Category: Known deviation (baseline)" in text
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    browser.screenshot(path=str(SCREENSHOTS / "allure-failed-rule.png"))
    browser.locator("[data-testid=test-result-tab-attachments]").click()
    browser.get_by_text("frames, connection 1").first.wait_for()
    shown = browser.locator("body").inner_text()
    result_id = browser.url.rsplit("#", 1)[1].split("/")[0]  # "<id>/attachments"
    failed = next(r for r in results(runs / RUNS[-1]) if allure_report.report_id(r) == result_id)
    for attachment in failed.get("attachments", []):
        if attachment["name"].startswith(("frames", "reproducer")):
            assert attachment["name"] in shown, attachment["name"]


def test_every_cell_and_difference_links_to_its_case_in_the_deciding_run(built, served, browser):
    runs, site, _, _ = built
    held, decided = deciding_results(runs), deciding(runs)
    browser.goto(served + "index.html")
    cells = browser.locator("td.cell").all()
    assert len(cells) == len(decided)  # every rule run on a version has its cell
    links = set()
    for cell in cells:
        rule, broker, run = (cell.get_attribute(f"data-{k}") for k in ("rule", "broker", "run"))
        assert run == decided[(broker, rule)], (rule, broker)  # the narrow runs decide their rule only
        hrefs = [cell.locator("a.decides").get_attribute("href"),
                 *(a.get_attribute("href") for a in cell.locator("a.case").all())]
        assert all(hrefs), (rule, broker)  # no cell, no case mark without its link
        links |= {(rule, run, href) for href in hrefs}
    for row in browser.locator("#differs tr.difference").all():
        rule = row.get_attribute("data-rule")
        sides = row.locator("td.side").all()
        assert len(sides) == 2 and all(side.locator("a").count() for side in sides), rule
        links |= {(rule, side.get_attribute("data-run"), side.locator("a").get_attribute("href")) for side in sides}
    assert {rule for rule, _, _ in links} == {"RD-02", "PC-02", "CON-10", "QOS-10"}
    for rule, run, href in sorted(links):
        target = href.rsplit("#", 1)[1]
        assert target in held and held[target]["rule"] == rule and held[target]["run"] == run, href
        browser.goto(served + href)
        fullname = browser.locator("[data-testid=test-result-fullname]").first
        fullname.wait_for()
        assert fullname.inner_text().strip() == held[target]["fullName"], href


def test_junit_allure_and_the_matrix_give_every_case_the_same_class(built):
    """Case by case, for every run: the record's class, the JUnit element and property,
    the Allure status and label, and (in a deciding run) the matrix's mark of the case."""
    runs, site, _, _ = built
    marks = {link["report_id"]: link["outcome"] for row in csv.DictReader(open(site / "matrix.csv"))
             for link in json.loads(row["latest_case_links"])}
    held = deciding_results(runs)
    seen = Counter()
    for run_id in ORDER:
        document = ET.parse(runs / run_id / "junit.xml")
        junit = {(c.get("classname"), c.get("name")): c for c in document.iter("testcase")}
        suite = {p.get("name"): p.get("value") for p in document.find("testsuite/properties")}
        context = {"strict": suite["strict"] == "yes", "compared": suite["baseline"] != "none"}
        allure = {r["uuid"]: r for r in results(runs / run_id)}
        for record in records(runs / run_id):
            outcome, expected = record["outcome"], shown(record["outcome"])
            path, _, name = record["nodeid"].partition("::")
            case = junit[(path.removesuffix(".py").replace("/", "."), f"{record['rule']} {name}")]
            elements = [e.tag for e in case if e.tag in ("skipped", "failure", "error")]
            # what the case does to the run: a known deviation is skipped, never a failure
            element = junit_element(CaseResult.from_dict(record), **context)[0]
            assert elements == ([element] if element else []), (run_id, record["case"])
            assert {p.get("name"): p.get("value") for p in case.iter("property")}["outcome"] == outcome
            result = allure[record["allure"]["uuid"]]
            assert result["status"] == expected.allure, (run_id, record["case"])
            assert [l["value"] for l in result["labels"] if l["name"] == "outcome"] == [outcome]
            report_id = allure_report.report_id(result)
            if report_id in held:
                assert marks[report_id] == outcome, (run_id, record["case"])
            seen[outcome] += 1
    assert {"pass", "fail", "non-strict", "unsupported"} <= set(seen), seen


def test_the_matrix_page_charts_each_version_s_cells_and_the_weekly_pass_rate(built, served, browser):
    runs, site, _, _ = built
    browser.goto(served + "index.html")
    held = deciding_results(runs)
    for version in (GARAGEMQ, RABBITMQ):
        bars = browser.locator(f"svg#chart-outcomes-per-broker rect.bar[data-broker='{version}']")
        assert bars.count() >= 1 and bars.first.is_visible()
        counts = {b.get_attribute("data-outcome"): int(b.get_attribute("data-cases")) for b in bars.all()}
        # the version's cells, not its latest (narrow) run
        decided = Counter(next(l["value"] for l in r["labels"] if l["name"] == "outcome")
                          for r in held.values() if VERSION_OF[r["run"]] == version)
        assert counts == decided, version
    points = browser.locator("svg#chart-pass-rate circle.point")
    # one point per version and week, however many runs: the runs were made within minutes
    runs_per_point = {(p.get_attribute("data-broker"), p.get_attribute("data-week")): int(p.get_attribute("data-runs"))
                      for p in points.all()}
    assert sum(runs_per_point.values()) == len(ORDER) and len(runs_per_point) <= 4
    assert "the last 30 runs of each broker version" in browser.locator("body").inner_text()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    browser.screenshot(path=str(SCREENSHOTS / "matrix.png"), full_page=True)


def test_con_10_on_3_10_reads_pass_with_its_unsupported_share(built, served, browser):
    runs, site, _, _ = built
    browser.goto(served + "index.html")
    cell = browser.locator(f"td.cell[data-rule='CON-10'][data-broker='{RABBITMQ}']")
    assert cell.get_attribute("data-outcome") == "pass"
    # the flag: the per-queue ways' unsupported is a known deviation in 3.10.8's baseline
    assert cell.locator("a.decides").inner_text().strip() == con_10_mix(runs) + " \u2691"
    shares = [a.get_attribute("data-outcome") for a in cell.locator("a.case").all()]
    assert sorted(shares) == sorted(c["outcome"] for c in cases(runs / RABBITMQ_RUN) if c["rule"] == "CON-10")


def test_the_differs_view_lists_exactly_the_cases_that_differ(built, served, browser):
    runs, site, _, _ = built
    held = deciding_results(runs)
    on = {}  # (version, case) -> (rule, outcome), as the version's cells show it
    for run_id in ORDER:
        for record in records(runs / run_id):
            report_id = allure_report.report_id({"uuid": record["allure"]["uuid"]})
            if report_id in held:
                on[(VERSION_OF[run_id], record["case"])] = (record["rule"], record["outcome"])
    # aligned by case: a case run on both versions, with another outcome (the narrow run-5
    # ran RD-02 without its FLT-05 copies: those are on garagemq's side only)
    differ = {case for (version, case), (_, outcome) in on.items()
              if version == GARAGEMQ and (RABBITMQ, case) in on and on[(RABBITMQ, case)][1] != outcome}
    differ_rules = {case.split("/")[0].split("[")[0] for case in differ}
    assert "RD-02" in differ_rules  # garagemq breaks it
    browser.goto(served + "index.html")
    browser.select_option("#differs-a", GARAGEMQ)
    browser.select_option("#differs-b", RABBITMQ)
    shown_pair = browser.locator("#differs table.pair:visible")
    assert shown_pair.count() == 1
    rows = shown_pair.locator("tr.difference")
    assert {r.get_attribute("data-case") for r in rows.all()} == differ
    assert browser.locator("#differs-count").inner_text() == count_text(len(differ))
    browser.locator("#only-differs").check()
    assert {r.get_attribute("data-rule") for r in browser.locator("#matrix tbody tr:visible").all()} == differ_rules
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    browser.screenshot(path=str(SCREENSHOTS / "matrix-differs.png"), full_page=True)
    # the terminal says the same, between the versions and between two runs
    done = subprocess.run([".venv/bin/python", "-m", "amqp_conformance.reports", "diff", "garagemq", "3.10", "--site", str(site)],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == (1 if differ else 0), done.stderr  # as diff(1)
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"{count_text(len(differ))} between {GARAGEMQ} and {RABBITMQ}, of ")
    assert {line.split(": ")[0] for line in lines[1:] if not line.startswith(" ")} == differ
    assert all("allure/index.html#" in line for line in lines[1:] if line.startswith(" "))
    done = subprocess.run([".venv/bin/python", "-m", "amqp_conformance.reports", "diff", RUNS[-1], RABBITMQ_RUN,
                           "--runs", str(runs), "--site", str(site)], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode in (0, 1), done.stderr
    assert f"between {RUNS[-1]} and {RABBITMQ_RUN}, of " in done.stdout.splitlines()[0]
