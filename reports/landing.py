"""Landing: read stored run folders as they are and turn them into a few JSON Lines files
that Spark then loads with explicit schemas.

A run folder holds results.jsonl, one record per case (amqp_conformance.fixtures.core.outcomes.CaseResult,
written whole by the run store): this step re-serialises each record as one flat row
with the run id, and lands the message histories, history checks and PERF figures the
records carry as attachments. It never reads the Allure results (a sink for people; the
HTML report stages them as they are). All the analysis happens in Spark (reports/pipeline.py).

Bad input never stops the build: a run folder without a manifest (half-written), a
corrupt manifest, a run of a broker the pipeline does not know, a corrupt record or
history line is reported by name and skipped; everything else is kept.
"""

from __future__ import annotations


import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from amqp_conformance.fixtures.core import stored_runs
from amqp_conformance.fixtures.core.outcomes import CHECK_ATTACHMENT, HISTORY_ATTACHMENT, RESULTS_FILE

MANIFEST = "manifest.json"
PERF = "perf-figures.json"  # a PERF rule's figures (amqp_conformance.fixtures.vocabulary.perf.FIGURES_ATTACHMENT)
# Broker products the matrix knows. A run of anything else is skipped (by name) unless
# `python -m amqp_conformance.reports build --known-broker NAME` adds it: a typo in a broker name must not
# open a new column silently.
KNOWN_BROKERS = {"rabbitmq", "garagemq", "lavinmq", "activemq", "qpid", "solace"}
REQUIRED = ("run_id", "broker", "broker_version", "started_at")


@dataclass
class Landed:
    runs: int = 0
    results: int = 0
    events: int = 0
    checks: int = 0
    figures: int = 0
    problems: list[str] = field(default_factory=list)
    run_dirs: dict[str, Path] = field(default_factory=dict)  # run id -> folder
    allure_dirs: dict[str, Path] = field(default_factory=dict)  # run id -> its allure results


def discover(paths: list[Path]) -> list[Path]:
    """Run folders: a path that is a run folder (it has a manifest or case records), or
    the folders directly inside a path (reports/runs/)."""
    found = []
    for path in paths:
        if not path.is_dir():
            continue
        if _looks_like_run(path):
            found.append(path)
        else:
            found.extend(sorted(p for p in path.iterdir() if p.is_dir()))
    return found


def _looks_like_run(path: Path) -> bool:
    return (path / MANIFEST).exists() or (path / RESULTS_FILE).exists()


def land(run_dirs: list[Path], staging: Path, known_brokers: set[str] | None = None) -> Landed:
    known = {b.lower() for b in (known_brokers or set())} | KNOWN_BROKERS
    staging.mkdir(parents=True, exist_ok=True)
    landed = Landed()
    with open(staging / "runs.jsonl", "w") as runs, open(staging / "results.jsonl", "w") as results, \
            open(staging / "events.jsonl", "w") as events, open(staging / "checks.jsonl", "w") as checks, \
            open(staging / "perf.jsonl", "w") as perf:
        for run_dir in run_dirs:
            manifest = _manifest(run_dir, known, landed.problems)
            if manifest is None:
                continue
            run_id = manifest["run_id"]
            if run_id in landed.run_dirs:
                landed.problems.append(f"{run_dir}: skipped, run id {run_id} already read from "
                                       f"{landed.run_dirs[run_id]}")
                continue
            records = run_dir / (manifest.get("results") or RESULTS_FILE)
            if not records.is_file():
                landed.problems.append(f"{run_dir}: skipped, half-written: no {records.name}")
                continue
            lost = stored_runs.mismatch(manifest, records.read_text(), str(run_dir))  # records lost since
            if lost:
                landed.problems.append(lost)
                continue
            landed.run_dirs[run_id] = run_dir
            allure_dir = run_dir / (manifest.get("allure_results") or "allure-results")
            if allure_dir.is_dir():
                landed.allure_dirs[run_id] = allure_dir
            runs.write(json.dumps(_run_row(manifest, run_dir)) + "\n")
            landed.runs += 1
            for number, line in enumerate(records.read_text().splitlines(), 1):
                if not line.strip():
                    continue
                where = f"{records}:{number}"
                try:
                    record = json.loads(line)
                    if not isinstance(record, dict) or not record.get("rule") or not record.get("outcome"):
                        raise ValueError("not a case record (no rule or outcome)")
                except ValueError as bad:
                    landed.problems.append(f"{where}: skipped, corrupt JSON ({_short(bad)})")
                    continue
                row = _result_row(record, run_id, number)
                results.write(json.dumps(row) + "\n")
                landed.results += 1
                attachments = record.get("attachments") if isinstance(record.get("attachments"), dict) else {}
                for name, text in attachments.items():
                    source = f"{where} {name}"
                    if name == HISTORY_ATTACHMENT:
                        landed.events += _land_history(str(text), source, run_id, row["uuid"], events, landed.problems)
                    elif name == CHECK_ATTACHMENT:
                        landed.checks += _land_check(str(text), source, run_id, row["uuid"], checks, landed.problems)
                    elif name == PERF:
                        landed.figures += _land_figures(str(text), source, run_id, row["uuid"], perf, landed.problems)
    return landed


def _result_row(record: dict, run_id: str, number: int) -> dict:
    """One case record as a row: the record as the run store wrote it (its attachments are
    landed apart, into the events, checks and perf tables), with its run, its line and its
    key in the run (`uuid`: where the Allure sink put it, else run and line)."""
    allure = record.get("allure") if isinstance(record.get("allure"), dict) else {}
    row = {k: v for k, v in record.items() if k != "attachments"}
    return {**row, "run_id": run_id, "line": number, "uuid": allure.get("uuid") or f"{run_id}:{number}"}


def _manifest(run_dir: Path, known: set[str], problems: list[str]) -> dict | None:
    path = run_dir / MANIFEST
    if not path.exists():
        problems.append(f"{run_dir}: skipped, half-written: no {MANIFEST} (the run did not finish)")
        return None
    try:
        manifest = json.loads(path.read_text())
    except (OSError, ValueError) as bad:
        problems.append(f"{path}: skipped the run, corrupt JSON ({_short(bad)})")
        return None
    if not isinstance(manifest, dict) or any(not manifest.get(k) for k in REQUIRED):
        missing = [k for k in REQUIRED if not (isinstance(manifest, dict) and manifest.get(k))]
        problems.append(f"{path}: skipped the run, manifest lacks {', '.join(missing)}")
        return None
    if manifest.get("interrupted"):  # amqp_conformance.fixtures.plugin.interruption: stored, but never a complete run
        counted = sum((manifest.get("outcomes") or {}).values())
        problems.append(f"{run_dir}: interrupted by {manifest['interrupted']} after {counted} cases "
                        f"(exit status {manifest.get('exit_status')}): not counted, an interrupted run is never complete")
        return None
    # The manifest names the product as the broker announces it ("Apache Qpid Broker-J
    # Core"): known when one of its words is a known broker.
    words = set(re.split(r"[^a-z0-9]+", str(manifest["broker"]).lower()))
    if not words & known:
        problems.append(f"{run_dir}: skipped, unknown broker {manifest['broker']!r} "
                        f"(known: {', '.join(sorted(known))}; add one with --known-broker)")
        return None
    return manifest


def _run_row(manifest: dict, run_dir: Path) -> dict:
    outcomes = manifest.get("outcomes") or {}
    return {
        "run_id": manifest["run_id"], "broker": manifest["broker"], "broker_version": str(manifest["broker_version"]),
        "broker_origin": manifest.get("broker_origin"), "started_at": manifest["started_at"],
        "ended_at": manifest.get("ended_at"), "duration_s": manifest.get("duration_s"),
        "exit_status": manifest.get("exit_status"), "suite_git_sha": manifest.get("suite_git_sha"),
        "outcomes": {str(k): int(v) for k, v in outcomes.items() if isinstance(v, int)},
        "options": json.dumps(manifest.get("options") or {}, sort_keys=True), "run_dir": str(run_dir),
        "transport": transport_text(manifest.get("transport")),
    }


def transport_text(transport) -> str | None:
    """tcp or tls, TLS version and cipher, peer verified or not, SASL mechanism, in one line
    (a manifest written before runs recorded their transport has none)."""
    if not isinstance(transport, dict) or not transport.get("kind"):
        return None
    if transport["kind"] != "tls":
        return f"tcp, {transport.get('auth_mechanism') or 'PLAIN'}"
    verified = "peer verified" if transport.get("peer_verified") else "peer not verified"
    return (f"tls {transport.get('tls_version') or '?'} {transport.get('cipher') or '?'}, {verified}, "
            f"{transport.get('auth_mechanism') or 'PLAIN'}")


def _land_history(text: str, source: str, run_id: str, result_uuid: str, out, problems: list[str]) -> int:
    lines = text.splitlines()
    n = 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
            if not isinstance(event, dict) or "kind" not in event:
                raise ValueError("not an event object")
        except ValueError as bad:
            problems.append(f"{source}:{number}: skipped a corrupt history line ({_short(bad)})")
            continue
        out.write(json.dumps({**event, "run_id": run_id, "result_uuid": result_uuid, "line": number}) + "\n")
        n += 1
    return n


def _land_check(text: str, source: str, run_id: str, result_uuid: str, out, problems: list[str]) -> int:
    try:
        check = json.loads(text)
        if not isinstance(check, dict):
            raise ValueError("not an object")
    except ValueError as bad:
        problems.append(f"{source}: skipped, corrupt {CHECK_ATTACHMENT} ({_short(bad)})")
        return 0
    out.write(json.dumps({**check, "run_id": run_id, "result_uuid": result_uuid}) + "\n")
    return 1


def _land_figures(text: str, source: str, run_id: str, result_uuid: str, out, problems: list[str]) -> int:
    """One row per figure of a PERF case: its rule, case, instrument, setting, unit, the
    median and spread of its repetitions, the median load average, the guides' claim and,
    for a setting the broker lacks, the probe's evidence. `position` keeps the order the
    test measured in (the charts' order of settings)."""
    try:
        record = json.loads(text)
        if not isinstance(record, dict) or not isinstance(record.get("figures"), list):
            raise ValueError("no list of figures")
    except ValueError as bad:
        problems.append(f"{source}: skipped, corrupt {PERF} ({_short(bad)})")
        return 0
    n = 0
    for position, figure in enumerate(record["figures"]):
        if not isinstance(figure, dict) or not figure.get("setting"):
            problems.append(f"{source}: skipped figure {position}, it has no setting")
            continue
        loads = [x for x in figure.get("loads") or [] if isinstance(x, (int, float))]
        runs = [x for x in figure.get("runs") or [] if isinstance(x, (int, float))]
        out.write(json.dumps({
            "run_id": run_id, "result_uuid": result_uuid, "rule": record.get("rule"), "case": record.get("case"),
            "position": position, "setting": figure["setting"], "instrument": figure.get("instrument") or "ours",
            "unit": figure.get("unit"), "claim": figure.get("claim"), "median": figure.get("median"),
            "min": figure.get("min"), "max": figure.get("max"), "repetitions": len(runs),
            "load": sorted(loads)[len(loads) // 2] if loads else None,
            "unsupported": figure.get("unsupported")}) + "\n")
        n += 1
    return n


def _short(error: Exception) -> str:
    return str(error).splitlines()[0][:120] if str(error) else type(error).__name__
