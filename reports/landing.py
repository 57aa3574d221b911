"""Landing, the driver's side: which run folders there are, which of them are new, and
what their manifests say. Spark reads the folders' records itself (reports/pipeline.py,
read_runs): results.jsonl, one case record a line (amqp_conformance.fixtures.core.outcomes.
CaseResult, written whole by the run store), and the message histories, history checks
and PERF figures the records carry as attachments. Nothing is copied line by line here,
and the Allure results are never read (a sink for people; the HTML report stages them
as they are).

A run lands once, by its run id: a folder already in the runs table (by its place, or by
its run id) is not read again, so re-landing a run is a no-op and a build reads only
what is new. A stored run folder is never written.

Bad input never stops the build: a run folder without a manifest (half-written), a
corrupt manifest, a run of a broker the pipeline does not know, a corrupt record or
history line is reported by name and skipped; everything else is kept.
"""

from __future__ import annotations


import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone

from amqp_conformance.fixtures.core.outcomes import RESULTS_FILE

from .storage import Store, is_local, join, local_path, to_uri

MANIFEST = "manifest.json"
PERF = "perf-figures.json"  # a PERF rule's figures (amqp_conformance.fixtures.vocabulary.perf.FIGURES_ATTACHMENT)
# Broker products the matrix knows. A run of anything else is skipped (by name) unless
# `python -m amqp_conformance.reports build --known-broker NAME` adds it: a typo in a broker name must not
# open a new column silently.
KNOWN_BROKERS = {"rabbitmq", "garagemq", "lavinmq", "activemq", "qpid", "solace"}
REQUIRED = ("run_id", "broker", "broker_version", "started_at")


@dataclass
class Run:
    """A run folder to land: its catalog row (the manifest's facts, pipeline.RUNS) and
    where its records are."""
    row: dict
    results: str  # URI of its results.jsonl
    manifest: dict = field(default_factory=dict)  # its counts are checked against the records (pipeline.read_runs)

    @property
    def run_id(self) -> str:
        return self.row["run_id"]


@dataclass
class Landing:
    new: list[Run] = field(default_factory=list)
    stored: int = 0  # run folders already landed by an earlier build
    problems: list[str] = field(default_factory=list)


def shown(uri: str) -> str:
    """A location as messages name it: a plain path when it is local."""
    return str(local_path(uri)) if is_local(uri) else uri


def discover(paths, store: Store | None = None) -> list[str]:
    """Run folders (URIs): a path that is a run folder (it has a manifest or case records),
    or the folders directly inside a path (reports/runs/)."""
    store = store or Store()
    found = []
    for uri in map(to_uri, paths):
        if not store.is_dir(uri):
            continue
        if _looks_like_run(store, uri):
            found.append(uri)
        else:
            found.extend(store.dirs(uri))
    return found


def _looks_like_run(store: Store, uri: str) -> bool:
    return store.exists(join(uri, MANIFEST)) or store.exists(join(uri, RESULTS_FILE))


def plan(run_dirs: list[str], landed: dict[str, str] | None = None, known_brokers: set[str] | None = None,
         store: Store | None = None) -> Landing:
    """The runs to land: every good run folder whose run is not in `landed` yet (run id ->
    the folder it was landed from, as the runs table holds them)."""
    store = store or Store()
    known = {b.lower() for b in (known_brokers or set())} | KNOWN_BROKERS
    landed = dict(landed or {})
    landed_dirs = set(landed.values())
    out = Landing()
    reading: dict[str, str] = {}
    for run_dir in run_dirs:
        if shown(run_dir) in landed_dirs:
            out.stored += 1
            continue
        manifest = _manifest(store, run_dir, known, out.problems)
        if manifest is None:
            continue
        run_id = manifest["run_id"]
        if run_id in landed:
            out.stored += 1  # landed before from elsewhere: landing it again changes nothing
            continue
        if run_id in reading:
            out.problems.append(f"{shown(run_dir)}: skipped, run id {run_id} already read from {reading[run_id]}")
            continue
        records = join(run_dir, manifest.get("results") or RESULTS_FILE)
        if not store.is_file(records):
            out.problems.append(f"{shown(run_dir)}: skipped, half-written: no {records.rsplit('/', 1)[-1]}")
            continue
        allure = join(run_dir, manifest.get("allure_results") or "allure-results")
        reading[run_id] = shown(run_dir)
        out.new.append(Run(_run_row(manifest, run_dir, allure if store.is_dir(allure) else None), records, manifest))
    return out


def _manifest(store: Store, run_dir: str, known: set[str], problems: list[str]) -> dict | None:
    path = join(run_dir, MANIFEST)
    if not store.exists(path):
        problems.append(f"{shown(run_dir)}: skipped, half-written: no {MANIFEST} (the run did not finish)")
        return None
    try:
        manifest = json.loads(store.read_text(path))
    except (OSError, ValueError) as bad:
        problems.append(f"{shown(path)}: skipped the run, corrupt JSON ({_short(bad)})")
        return None
    if not isinstance(manifest, dict) or any(not manifest.get(k) for k in REQUIRED):
        missing = [k for k in REQUIRED if not (isinstance(manifest, dict) and manifest.get(k))]
        problems.append(f"{shown(path)}: skipped the run, manifest lacks {', '.join(missing)}")
        return None
    if started_at(manifest["started_at"]) is None:
        problems.append(f"{shown(path)}: skipped the run, started_at {manifest['started_at']!r} is no ISO time")
        return None
    if manifest.get("interrupted"):  # amqp_conformance.fixtures.plugin.interruption: stored, but never a complete run
        counted = sum((manifest.get("outcomes") or {}).values())
        problems.append(f"{shown(run_dir)}: interrupted by {manifest['interrupted']} after {counted} cases "
                        f"(exit status {manifest.get('exit_status')}): not counted, an interrupted run is never complete")
        return None
    # The manifest names the product as the broker announces it ("Apache Qpid Broker-J
    # Core"): known when one of its words is a known broker.
    words = set(re.split(r"[^a-z0-9]+", str(manifest["broker"]).lower()))
    if not words & known:
        problems.append(f"{shown(run_dir)}: skipped, unknown broker {manifest['broker']!r} "
                        f"(known: {', '.join(sorted(known))}; add one with --known-broker)")
        return None
    return manifest


def started_at(text) -> datetime | None:
    """A manifest's start as a UTC time (a time without an offset is UTC)."""
    try:
        when = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None
    return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)


def broker_dir(broker_key: str) -> str:
    """A broker version as a partition folder's value: lower case, letters, digits, dot,
    dash and underscore only, so a folder name never needs escaping."""
    return re.sub(r"[^a-z0-9._-]+", "-", broker_key.lower()).strip("-") or "unknown"


def _run_row(manifest: dict, run_dir: str, allure_dir: str | None) -> dict:
    outcomes = manifest.get("outcomes") or {}
    started = started_at(manifest["started_at"])
    key = f"{manifest['broker']} {manifest['broker_version']}"
    duration, status = manifest.get("duration_s"), manifest.get("exit_status")
    return {
        "run_id": str(manifest["run_id"]), "broker": str(manifest["broker"]),
        "broker_version": str(manifest["broker_version"]), "broker_origin": _text(manifest.get("broker_origin")),
        "started_at": str(manifest["started_at"]), "ended_at": _text(manifest.get("ended_at")),
        "duration_s": float(duration) if isinstance(duration, (int, float)) else None,
        "exit_status": status if isinstance(status, int) else None,
        "suite_git_sha": _text(manifest.get("suite_git_sha")),
        "outcomes": {str(k): int(v) for k, v in outcomes.items() if isinstance(v, int)},
        "options": json.dumps(manifest.get("options") or {}, sort_keys=True), "run_dir": shown(run_dir),
        "transport": transport_text(manifest.get("transport")),
        "allure_results": shown(allure_dir) if allure_dir else None,
        "broker_key": key, "broker_dir": broker_dir(key), "run_started": started, "date": f"{started:%Y-%m-%d}",
    }


def _text(value) -> str | None:
    return None if value is None else str(value)


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


def _short(error: Exception) -> str:
    return str(error).splitlines()[0][:120] if str(error) else type(error).__name__
