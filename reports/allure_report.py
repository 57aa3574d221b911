"""The Allure 3 HTML report: the latest run of each broker and version, side by side as
Allure environments, with history points for the older runs written by the pipeline.

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

from amqp_conformance.fixtures.core.outcomes import CATEGORIES, allure2_categories, allure_history_id

HERE = Path(__file__).resolve().parent
VERSION = (HERE / "allure_version").read_text().strip()
GTAG = re.compile(r"<script[^>]*googletagmanager[^>]*>\s*</script>\s*(<script>[^<]*gtag\([^<]*</script>)?", re.S)


class AllureMissing(RuntimeError):
    pass


def allure_bin() -> Path:
    cache = Path(os.environ.get("AMQP_CONFORMANCE_CACHE", Path.home() / ".cache" / "amqp-conformance"))
    path = cache / f"allure-{VERSION}" / "node_modules" / ".bin" / "allure"
    if not path.exists():
        raise AllureMissing(f"Allure {VERSION} is not installed at {path}: run ci/setup")
    return path


def environment_id(broker_key: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", broker_key)


def stage_results(allure_dirs: dict[str, Path], staged: Path) -> int:
    """Copy the chosen runs' results (and their attachments) into one folder, as they are."""
    if staged.exists():
        shutil.rmtree(staged)
    staged.mkdir(parents=True)
    n = 0
    for run_id, source in allure_dirs.items():
        for path in source.iterdir():
            if path.name.endswith("-result.json"):
                try:
                    json.loads(path.read_text())
                except ValueError:
                    continue  # reported by the landing step
                shutil.copyfile(path, staged / path.name)
                n += 1
            elif path.is_file() and ("-attachment" in path.name or path.name.endswith("-container.json")):
                shutil.copyfile(path, staged / path.name)
    (staged / "categories.json").write_text(json.dumps(allure2_categories(), indent=2))
    return n


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


def write_config(report_dir: Path, broker_keys: dict[str, tuple[str, str]], history: Path, name: str) -> Path:
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
  plugins: {{ awesome: {{ options: {{ singleFile: true, reportLanguage: "en" }} }} }},
}};
""")
    return config


def generate(staged: Path, report_dir: Path, broker_keys: dict[str, tuple[str, str]], history_lines: list[dict],
             name: str = "AMQP 0-9-1 conformance") -> Path:
    if report_dir.exists():
        shutil.rmtree(report_dir)
    report_dir.parent.mkdir(parents=True, exist_ok=True)
    # The pipeline writes the older runs' history afresh each build; Allure appends this
    # report's point to it, so the file is rewritten, never accumulated across builds.
    history = report_dir.parent / "allure-history.jsonl"
    history.write_text("".join(json.dumps(line) + "\n" for line in history_lines))
    config = write_config(report_dir, broker_keys, history, name)
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
