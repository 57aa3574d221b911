"""The command line's own parts, without a broker: the stored-run checks
(fixtures/core/stored_runs.py), the suite-first help, and the progress-letter legend.
tests/integration/test_stored_runs.py runs the commands themselves."""

from __future__ import annotations

import json

from amqp_conformance.fixtures.commands import cli
from amqp_conformance.fixtures.core import stored_runs
from amqp_conformance.fixtures.plugin import progress


def test_a_run_folder_may_be_new_or_empty_and_nothing_else(tmp_path):
    assert stored_runs.why_not_a_new_run_folder(tmp_path / "new") is None
    assert stored_runs.why_not_a_new_run_folder(tmp_path) is None  # empty
    (tmp_path / "junit.xml").write_text("<testsuites/>")
    assert "already holds files" in stored_runs.why_not_a_new_run_folder(tmp_path)
    (tmp_path / "manifest.json").write_text("{}")
    assert "already holds a stored run" in stored_runs.why_not_a_new_run_folder(tmp_path)
    assert "is a file" in stored_runs.why_not_a_new_run_folder(tmp_path / "junit.xml")


def test_no_output_lies_in_a_stored_run(tmp_path):
    run = tmp_path / "runs" / "r1"
    run.mkdir(parents=True)
    (run / "manifest.json").write_text("{}")
    assert "lies in the stored run" in stored_runs.why_not_an_output("--junitxml", run / "junit.xml")
    assert "lies in the stored run" in stored_runs.why_not_an_output("--alluredir", run / "allure-results" / "x")
    assert stored_runs.why_not_an_output("--junitxml", tmp_path / "runs" / "r2" / "junit.xml") is None
    assert stored_runs.why_not_a_run(run) is None and "no such run folder" in stored_runs.why_not_a_run(tmp_path / "x")
    assert "not a stored run" in stored_runs.why_not_a_run(tmp_path / "runs")


def test_records_that_do_not_add_up_to_the_manifest_are_named():
    manifest = {"outcomes": {"pass": 2, "fail": 1, "deviation": 1}}
    lines = [{"outcome": "pass"}, {"outcome": "pass"}, {"outcome": "fail", "deviation": "new"}]
    text = "".join(json.dumps(line) + "\n" for line in lines)
    assert stored_runs.mismatch(manifest, text, "r") is None
    assert stored_runs.mismatch({"outcomes": {}}, "", "r") is None  # a manifest without counts: nothing to compare
    emptied = stored_runs.mismatch(manifest, "", "r")
    assert emptied == ("r: skipped, its records do not match its manifest.json "
                       "(records found of those counted: deviation 0 of 1, fail 0 of 1, pass 0 of 2)")
    assert "pass 1 of 2" in stored_runs.mismatch(manifest, text.split("\n", 1)[1] + "not json\n", "r")


def test_the_help_lists_the_suites_options_first_and_whole():
    text = cli.help_text("ci/suite")
    assert text.startswith("usage: ci/suite [command options] [suite options]")
    pytest_part = text.index("pytest's options: every other option is passed to pytest")
    for option in ("--repeat N", "--clean", "--version", "--amqp-url", "--broker", "--run-dir", "--baseline",
                   "--reruns", "--strict", "--lf, --ff, --sw"):
        assert -1 < text.index(option) < pytest_part, option
    assert "AMQP 0-9-1 conformance suite:" not in text


def test_the_help_lists_each_option_once_with_its_default_and_every_broker_form():
    """-k, -m, --strict and --lf were listed twice (the suite's entry and pytest's), the
    bounds had no default, and --broker left out docker:IMAGE and all."""
    import re

    text = cli.help_text("ci/suite")
    for option in ("-k", "-m", "-n", "--strict", "--lf", "--broker", "--collect-only"):
        entries = re.findall(rf"^  {re.escape(option)}[ ,=]", text, flags=re.MULTILINE)
        assert len(entries) == 1, (option, entries)
    assert re.search(r"--reply-timeout SECONDS\s+seconds to wait for any broker reply \(env\s+AMQP_REPLY_TIMEOUT; "
                     r"default\s+[0-9.]+\)", text), text[:3000]
    assert re.search(r"AMQP_NEGATIVE_WINDOW; default", text)
    broker = text[text.index("  --broker BROKER"):text.index("  --reply-timeout")]
    assert "docker:IMAGE" in broker and "or all" in broker and "garagemq" in broker


def test_the_help_is_argparses_not_a_slice_of_pytests():
    """The help was cut out of a `pytest --help` run in a subprocess; the suite's options
    are now recorded from the plugins' own pytest_addoption into one argparse parser."""
    import inspect

    assert "subprocess" not in inspect.getsource(cli.help_text) + inspect.getsource(cli.help_parser)
    parser = cli.help_parser("amqp-conformance")
    given = parser.parse_args(["--amqp-url", "amqp://h/", "--broker", "garagemq", "--reruns", "0"])
    assert given.amqp_url[-1] == "amqp://h/" and given.broker == "garagemq"


def test_the_command_passes_its_own_options_on_to_no_one():
    assert cli._without(["--repeat", "3", "-k", "A", "--repeat=2", "--run-dir", "x"], "--repeat") == \
        ["-k", "A", "--run-dir", "x"]
    assert "-n" not in cli.pytest_args(["--sw"], cli.Path("r"))  # stepwise stops at the first failure: one process
    assert f"cache_dir={cli.Path.cwd() / cli.CACHE_DIR}" in cli.pytest_args([], cli.Path("r"))
    own, passed = cli.command_parser("ci/suite").parse_known_args(
        ["-k", "ACK-04", "--repeat", "2", "conformance/x.py", "-m", "must", "--broker=garagemq", "-n", "2", "--lf"])
    assert own.repeat == "2"
    assert passed == ["-k", "ACK-04", "conformance/x.py", "-m", "must", "--broker=garagemq", "-n", "2", "--lf"]


def test_ci_suite_is_a_thin_launcher():
    """ci/suite scanned its arguments in bash (--help, --clean, --broker all, --repeat,
    -n, --run-dir) a second time beside the Python command line; now it only runs it."""
    script = (cli.CHECKOUT / "ci" / "suite").read_text()
    code = [line for line in script.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert not any(word in line for line in code for word in ("for arg", "case ", "args[", "--repeat", "--broker"))
    assert code[-1].endswith('exec .venv/bin/python -m amqp_conformance.fixtures.commands.cli "$@"')


def test_checkout_and_installed_runs_differ_only_in_what_pytest_collects():
    checkout = cli.Launcher("ci/suite", "[suite]", True)
    args = cli.pytest_args(["-k", "ACK-04"], cli.Path("r"), checkout)
    assert args[0] == "conformance" and args[-2:] == ["-k", "ACK-04"] and "--run-dir=r" in args
    installed = cli.pytest_args(["-k", "ACK-04"], cli.Path("r"))
    assert installed[:2] == ["--pyargs", "amqp_conformance.conformance"] and installed[-2:] == ["-k", "ACK-04"]
    assert "-n" not in cli.pytest_args(["-p", "no:xdist"], cli.Path("r"), checkout)
    assert "-n" not in cli.pytest_args(["-n2"], cli.Path("r"), checkout)


def test_every_progress_letter_has_its_legend():
    legend = progress.progress_legend()
    for letter, *_ in [(shown[1],) for shown in progress.LETTERS.values()] + list(progress.PYTEST_LETTERS):
        assert f" {letter} " in legend, letter


def test_reports_build_help_lists_each_option_once():
    import re
    import subprocess
    import sys

    shown = subprocess.run([sys.executable, "-m", "amqp_conformance.reports", "build", "--help"], capture_output=True,
                           text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    for option in ("--out", "--data", "--master", "--conf", "--window", "--full", "--known-broker", "--no-allure"):
        assert len(re.findall(rf"^  {option}\b", shown.stdout, flags=re.MULTILINE)) == 1, (option, shown.stdout)
    assert "(default: 30 runs)" in " ".join(shown.stdout.split())


def test_a_refused_run_over_a_stored_one_is_not_reported_stored(tmp_path, monkeypatch, capsys):
    """The command said "run stored in DIR" whenever DIR held a manifest, also when the
    run store had refused DIR because it already held a stored run."""
    stored = tmp_path / "runs" / "r1"
    stored.mkdir(parents=True)
    (stored / "manifest.json").write_text("{}")
    monkeypatch.setattr(cli, "_pytest_forwarding_signals", lambda command: 4)  # refused: nothing written
    assert cli.run(["-k", "ACK-04"], stored, cli.Launcher("amqp-conformance", "[amqp-conformance]", False)) == 4
    assert "run stored" not in capsys.readouterr().out and (stored / "manifest.json").exists()
    fresh = tmp_path / "runs" / "r2"
    monkeypatch.setattr(cli, "_pytest_forwarding_signals",
                        lambda command: (fresh.mkdir(), (fresh / "manifest.json").write_text("{}"), 0)[-1])
    assert cli.run([], fresh, cli.Launcher("amqp-conformance", "[amqp-conformance]", False)) == 0
    assert capsys.readouterr().out.strip() == f"[amqp-conformance] run stored in {fresh}"
