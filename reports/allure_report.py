"""The Allure 3 HTML report: each broker version as an Allure environment holding, for
every rule, its cases from the run that decides the rule's matrix cell (the latest run
that ran the rule), so every cell and diff line links to a case of the run that decided
it however many narrower runs came later; and history points for a bounded number of
older runs, written by the pipeline.

Allure 3 is the npm package `allure` at the version in reports/allure_version, which
ci/setup installs into ~/.cache/amqp-conformance/allure-<version> (no Java).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from amqp_conformance.fixtures.core.cache import cache_dir
from amqp_conformance.fixtures.core.outcomes import CATEGORIES, allure2_categories, allure_history_id

HERE = Path(__file__).resolve().parent
VERSION_FILE = HERE / "allure_version"  # the one pin of Allure 3 (ci/setup reads it too)
# How the report is laid out (Allure 3's singleFile option). Its data in files beside the
# page: a case opens fast (it fetches only what it shows) but only from a web server, as a
# browser refuses those fetches to a page opened from disk. One file: opens from disk (a CI
# artifact), and the browser reads all of it before any case shows.
LAYOUTS = {"files": "the page and its data in files: a case opens fast; open it through `reports serve`",
           "single": "one self-contained index.html: opens from disk (a CI artifact); slow to open when large"}
DEFAULT_LAYOUT = "files"
GTAG = re.compile(r"<script[^>]*googletagmanager[^>]*>\s*</script>\s*(<script>[^<]*gtag\([^<]*</script>)?", re.S)


class AllureMissing(RuntimeError):
    pass


def allure_bin() -> Path:
    version = VERSION_FILE.read_text().strip()
    path = cache_dir() / f"allure-{version}" / "node_modules" / ".bin" / "allure"
    if not path.exists():
        raise AllureMissing(f"Allure {version} is not installed at {path}: run ci/setup")
    return path


def environment_id(broker_key: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", broker_key)


def deciding_runs(matrix: list[dict]) -> dict[str, set[str]]:
    """run id -> the rules whose cell that run decides (on its broker version): the cases
    the report must hold so that every cell and every diff line has a page to link to."""
    deciding: dict[str, set[str]] = {}
    for row in matrix:
        deciding.setdefault(row["latest_run"], set()).add(row["rule"])
    return deciding


def history_runs(run_rows: list[dict], deciding: dict[str, set[str]], points: int) -> set[str]:
    """The runs drawn as Allure history points: the newest `points` runs, over every broker
    version, that decide no cell (so the history stays bounded however many versions)."""
    older = sorted((r for r in run_rows if r["run_id"] not in deciding),
                   key=lambda r: (r["started_at"], r["run_id"]))
    return {r["run_id"] for r in older[-points:]} if points > 0 else set()


def stage_results(allure_dirs: dict[str, Path], deciding: dict[str, set[str]], staged: Path) -> set[str]:
    """Copy into one folder, as they are, the results of each run's deciding rules (and what
    they attach, and the containers of their fixtures): each case once per broker version,
    from the run its cell shows. Returns the report ids staged."""
    if staged.exists():
        shutil.rmtree(staged)
    staged.mkdir(parents=True)
    in_report: set[str] = set()
    for run_id, rules in deciding.items():
        source = allure_dirs.get(run_id)
        if source is None:
            continue
        kept, sources = set(), set()
        for path in source.glob("*-result.json"):
            try:
                result = json.loads(path.read_text())
            except ValueError:
                continue  # reported by the landing step
            if not any(label.get("name") == "rule" and label.get("value") in rules for label in result.get("labels", [])):
                continue
            shutil.copyfile(path, staged / path.name)
            kept.add(result["uuid"])
            in_report.add(report_id(result))
            sources |= set(_attachment_sources(result))
        for name in sources:
            if (source / name).is_file():
                shutil.copyfile(source / name, staged / name)
        for path in source.glob("*-container.json"):
            try:
                container = json.loads(path.read_text())
            except ValueError:
                continue
            if kept & set(container.get("children") or []):
                shutil.copyfile(path, staged / path.name)
                for name in _attachment_sources(container):
                    if (source / name).is_file():
                        shutil.copyfile(source / name, staged / name)
    (staged / "categories.json").write_text(json.dumps(allure2_categories(), indent=2))
    return in_report


def _attachment_sources(node) -> list[str]:
    """The attachment files a result or container names, in its steps and fixtures too."""
    if isinstance(node, dict):
        found = [node["source"]] if isinstance(node.get("source"), str) and "attachment" in node["source"] else []
        return found + [s for value in node.values() for s in _attachment_sources(value)]
    if isinstance(node, list):
        return [s for value in node for s in _attachment_sources(value)]
    return []


def allure3_categories() -> list[dict]:
    """The categories as Allure 3 matchers: a rule's labels are matched as labels (the
    known deviation, the outcome class), the rest by status and message."""
    out = []
    for category in CATEGORIES:
        matcher: dict = {"statuses": category["matchedStatuses"]}
        if "labels" in category:
            matcher["labels"] = category["labels"]
        elif "messageRegex" in category:
            matcher["message"] = category["messageRegex"]
        out.append({"name": category["name"], "matchers": [matcher]})
    return out


def write_config(report_dir: Path, broker_keys: dict[str, tuple[str, str]], history: Path, name: str,
                 layout: str = DEFAULT_LAYOUT) -> Path:
    environments = {}
    for key, (broker, version) in sorted(broker_keys.items()):
        environments[environment_id(key)] = (
            f"{{ name: {json.dumps(key)}, matcher: ({{ labels }}) => "
            f"labels.some(l => l.name === 'broker_name' && l.value === {json.dumps(broker)}) && "
            f"labels.some(l => l.name === 'broker_version' && l.value === {json.dumps(version)}) }}")
    env_js = ",\n    ".join(f"{json.dumps(k)}: {v}" for k, v in environments.items())
    config = report_dir.parent / "allurerc.mjs"
    config.write_text(f"""// written by `python -m amqp_conformance.reports build`; regenerated on every build
export default {{
  name: {json.dumps(name)},
  output: {json.dumps(str(report_dir))},
  historyPath: {json.dumps(str(history))},
  categories: {json.dumps(allure3_categories())},
  environments: {{
    {env_js}
  }},
  plugins: {{ awesome: {{ options: {{ singleFile: {json.dumps(layout == "single")}, reportLanguage: "en" }} }} }},
}};
""")
    return config


def generate(staged: Path, report_dir: Path, broker_keys: dict[str, tuple[str, str]], history_lines: list[dict],
             name: str = "AMQP 0-9-1 conformance", layout: str = DEFAULT_LAYOUT) -> Path:
    """The report from the staged result files, in `layout` (one of LAYOUTS): its index.html."""
    if layout not in LAYOUTS:
        raise ValueError(f"no Allure layout {layout!r}: {', '.join(LAYOUTS)}")
    if report_dir.exists():
        shutil.rmtree(report_dir)
    report_dir.parent.mkdir(parents=True, exist_ok=True)
    # The pipeline writes the older runs' history afresh each build; Allure appends this
    # report's point to it, so the file is rewritten, never accumulated across builds.
    history = report_dir.parent / "allure-history.jsonl"
    history.write_text("".join(json.dumps(line) + "\n" for line in history_lines))
    config = write_config(report_dir, broker_keys, history, name, layout)
    env = {**os.environ, "ALLURE_NO_ANALYTICS": "true", "NO_COLOR": "1"}
    done = subprocess.run([str(allure_bin()), "generate", "--config", str(config), str(staged)],
                          capture_output=True, text=True, timeout=300, env=env, cwd=report_dir.parent)
    index = report_dir / "index.html"
    if done.returncode != 0 or not index.exists():
        raise RuntimeError(f"allure generate failed ({done.returncode}): {(done.stderr or done.stdout)[-2000:]}")
    # The Awesome report embeds an analytics script (allure3 #476): the report is opened
    # offline and must not call out, so it is removed.
    html = index.read_text()
    index.write_text(GTAG.sub("", html))
    return index


def history_id(result: dict) -> str:
    """Allure 3's history key of one result file (amqp_conformance.fixtures.core.outcomes.allure_history_id):
    what the tests compare the key a case's record carries with."""
    return allure_history_id(result.get("testCaseId"), result.get("fullName"),
                             [(p.get("name"), p.get("value")) for p in result.get("parameters") or []
                              if not p.get("excluded")])


def report_id(result: dict) -> str:
    """The id Allure 3 gives a result in the report (its page is index.html#<id>); the
    pipeline's report_id column, which the matrix cells link to, is the same md5."""
    return _md5(result["uuid"])


def _md5(text: str) -> str:
    return hashlib.md5(text.encode()).hexdigest()
