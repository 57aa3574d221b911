"""No stored run is ever lost or overwritten (issue 36, item 1): every command that touches a
run folder, given an existing run's id or folder and no broker to reach, leaves the stored
run byte for byte as it was, and a session that reaches no broker leaves no new folder.

The stored run here is a small one written by hand (a manifest, its records, JUnit,
Allure results, a broker log, a reproducer): the commands under test never get as far as
a broker, so no real run is needed. Each command is one line and a non-zero exit."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from amqp_conformance.fixtures.core.ports import free_port
from tests.suite_runs import REPO

pytestmark = pytest.mark.integration
RUN_ID = "20261127T100000Z-abc123"


def stored_run(folder: Path, records: int = 2) -> Path:
    """A stored run as the run store leaves one (a manifest that counts its records)."""
    (folder / "allure-results").mkdir(parents=True)
    (folder / "broker-log").mkdir()
    (folder / "reproducers").mkdir()
    lines = [{"rule": "ACK-04", "case": f"ACK-04[{n}]", "outcome": "pass"} for n in range(records)]
    (folder / "results.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    (folder / "manifest.json").write_text(json.dumps({
        "run_id": folder.name, "broker": "RabbitMQ", "broker_version": "4.0.5", "started_at": "2026-11-27T10:00:00+00:00",
        "outcomes": {"pass": 2, "fail": 0, "deviation": 0}, "results": "results.jsonl",
        "allure_results": "allure-results", "junit": "junit.xml"}))
    (folder / "junit.xml").write_text("<testsuites/>\n")
    (folder / "allure-results" / "0-result.json").write_text("{}\n")
    (folder / "broker-log" / "node.log.gz").write_bytes(b"\x1f\x8b not really gzip")
    (folder / "reproducers" / "ACK-04_ack.py").write_text("print('x')\n")
    return folder


def snapshot(folder: Path) -> dict[str, tuple]:
    """Every entry under `folder`: its kind, bytes (hashed), mode and modification time."""
    seen = {}
    for path in sorted([folder, *folder.rglob("*")]):
        facts = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
        seen[str(path.relative_to(folder))] = (digest, facts.st_mode, facts.st_mtime_ns)
    return seen


def run(*command: str, env: dict[str, str] | None = None, cwd: Path = REPO) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("AMQP_", "AMQPC_"))} | (env or {})
    return subprocess.run(list(command), cwd=cwd, env=environment, capture_output=True, text=True, timeout=300)


def refused_in_one_line(done: subprocess.CompletedProcess, *fragments: str) -> None:
    text = done.stdout + done.stderr
    assert done.returncode != 0, text[-3000:]
    assert "Traceback" not in text, text[-3000:]
    for fragment in fragments:
        assert fragment in text, text[-3000:]


@pytest.fixture
def runs(tmp_path) -> Path:
    runs = tmp_path / "runs"
    stored_run(runs / RUN_ID)
    stored_run(runs / f"{RUN_ID}-r1")
    return runs


NO_BROKER = ("--amqp-url", "amqp://u:secret@127.0.0.1:{port}/")
PYTEST = (sys.executable, "-m", "pytest", "conformance", "-p", "no:randomly")
CLI = (sys.executable, "-m", "amqp_conformance.fixtures.commands.cli")


def commands(runs: Path, port: int) -> list[tuple[str, tuple[str, ...], dict[str, str]]]:
    """(what, command, environment) for every command that may touch the stored run."""
    run_dir = str(runs / RUN_ID)
    no_broker = tuple(a.format(port=port) for a in NO_BROKER)
    by_id = {"AMQP_RUNS_DIR": str(runs), "AMQP_RUN_ID": RUN_ID}
    return [
        ("pytest --collect-only --run-dir RUN", (*PYTEST, "--collect-only", "-k", "ack_04", "--run-dir", run_dir), {}),
        ("pytest --run-dir RUN, no broker", (*PYTEST, *no_broker, "--run-dir", run_dir), {}),
        ("pytest --junitxml RUN/junit.xml", (*PYTEST, "--collect-only", "--junitxml", f"{run_dir}/junit.xml"), {}),
        ("pytest --alluredir RUN/allure-results", (*PYTEST, *no_broker, "--alluredir", f"{run_dir}/allure-results"), {}),
        ("ci/suite --collect-only, the run's id", ("ci/suite", "--collect-only", "-k", "ack_04"), by_id),
        ("ci/suite, no broker, the run's id", ("ci/suite", *no_broker), by_id),
        ("ci/suite --repeat 2, r1 stored", ("ci/suite", "--repeat", "2", *no_broker), by_id),
        ("ci/suite --run-dir RUN", ("ci/suite", *no_broker, "--run-dir", run_dir), {"AMQP_RUNS_DIR": str(runs)}),
        ("amqp-conformance --run-dir RUN --collect-only", (*CLI, "--collect-only", "--run-dir", run_dir), {}),
        ("amqp-conformance --run-dir RUN, no broker", (*CLI, *no_broker, "--run-dir", run_dir), {}),
        ("amqp-conformance --repeat 2 --run-dir RUN", (*CLI, "--repeat", "2", *no_broker, "--run-dir", run_dir), {}),
    ]


@pytest.mark.timeout(600)  # ten commands, each a Python start with the suite's plugins
def test_no_command_touches_a_stored_run(runs):
    port = free_port()
    before = {name: snapshot(runs / name) for name in (RUN_ID, f"{RUN_ID}-r1")}
    problems = []
    for what, command, env in commands(runs, port):
        done = run(*command, env=env)
        text = done.stdout + done.stderr
        if done.returncode == 0 or "Traceback" in text or "never reused" not in text and "never written again" not in text:
            problems.append(f"{what}: exit {done.returncode}\n{text[-1500:]}")
        after = {name: snapshot(runs / name) for name in before}
        if after != before:
            problems.append(f"{what}: the stored run changed")
        assert sorted(p.name for p in runs.iterdir()) == sorted(before), f"{what}: {sorted(runs.iterdir())}"
    assert not problems, "\n\n".join(problems)


@pytest.mark.timeout(300)
def test_a_session_that_reaches_no_broker_leaves_no_run_folder(tmp_path):
    port = free_port()
    runs = tmp_path / "runs"
    no_broker = tuple(a.format(port=port) for a in NO_BROKER)
    for what, command, env in [
        ("pytest --run-dir NEW", (*PYTEST, *no_broker, "--run-dir", str(runs / "new")), {}),
        ("pytest --collect-only --run-dir NEW", (*PYTEST, "--collect-only", "-k", "ack_04", "--run-dir", str(runs / "new")), {}),
        ("ci/suite, a new id", ("ci/suite", *no_broker), {"AMQP_RUNS_DIR": str(runs), "AMQP_RUN_ID": "new"}),
        ("amqp-conformance, a new folder", (*CLI, *no_broker, "--run-dir", str(runs / "new")), {}),
    ]:
        done = run(*command, env=env)
        assert done.returncode != 0 or "--collect-only" in command, f"{what}\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
        assert not (runs / "new").exists(), f"{what}: {sorted((runs / 'new').rglob('*'))}"


def test_the_tools_that_read_runs_refuse_what_is_not_one_and_never_write_to_one(tmp_path, runs):
    before = snapshot(runs / RUN_ID)
    done = run(sys.executable, "-m", "amqp_conformance.reports.flips", str(runs / RUN_ID), str(tmp_path / "missing"))
    assert done.returncode == 2 and done.stderr.count("[flips]") == 1 and "no such run folder" in done.stderr, done.stderr
    (tmp_path / "half").mkdir()
    done = run(sys.executable, "-m", "amqp_conformance.reports", "flips", str(tmp_path / "half"))
    assert done.returncode == 2 and "not a stored run" in done.stderr, done.stderr
    done = run(sys.executable, "-m", "amqp_conformance.reports.flips", str(runs / RUN_ID), str(runs / f"{RUN_ID}-r1"))
    assert done.returncode == 0 and "; 0 changed outcome between runs" in done.stdout, done.stdout + done.stderr
    assert snapshot(runs / RUN_ID) == before


@pytest.mark.timeout(300)  # the build may start Spark before it finds nothing to build
def test_the_build_refuses_a_run_whose_records_do_not_match_its_manifest(tmp_path):
    lost = stored_run(tmp_path / "runs" / RUN_ID, records=0)  # the results emptied after the manifest was written
    before = snapshot(lost)
    done = run(sys.executable, "-m", "amqp_conformance.reports", "build", str(lost), "--out", str(tmp_path / "site"),
               "--no-allure")
    assert done.returncode != 0, done.stdout + done.stderr
    line = f"{lost}: skipped, its records do not match its manifest.json (records found of those counted: pass 0 of 2)"
    assert line in done.stderr, done.stdout + done.stderr
    assert snapshot(lost) == before


def test_version_and_help_write_nothing(tmp_path):
    for command in ((*CLI, "--version"), (*CLI, "--help"), (str(REPO / "ci" / "suite"), "--version")):
        done = run(*command, cwd=tmp_path)
        assert done.returncode == 0 and not list(tmp_path.iterdir()), (command, done.stdout[-2000:], done.stderr[-2000:])
    assert done.stdout.startswith("ci/suite 0.1.0"), done.stdout
