"""The GitHub Actions workflow to copy (ci/github-actions.yml) runs only commands this
project's own tests run: ci/setup (ci/test), ci/suite and the report build (the report
test runs both), so a green ci/test vouches for it. No Allure 2 command line."""

from __future__ import annotations

import re

from tests.integration import test_reports_end_to_end as report_test
from tests.suite_runs import REPO

WORKFLOW = REPO / "ci" / "github-actions.yml"


def run_commands() -> list[str]:
    """Every command of every `run:` step (a one-line value or a `|` block)."""
    lines = WORKFLOW.read_text().splitlines()
    commands = []
    for i, line in enumerate(lines):
        found = re.match(r"^(\s*)(?:- )?run:\s*(.*)$", line)
        if not found:
            continue
        indent, value = len(found[1]), found[2].strip()
        if value not in ("|", ">"):
            commands.append(value)
            continue
        for block_line in lines[i + 1:]:
            if block_line.strip() and len(block_line) - len(block_line.lstrip()) <= indent:
                break
            if block_line.strip():
                commands.append(block_line.strip())
    return commands


def test_the_workflow_runs_only_what_the_project_tests_run():
    commands = run_commands()
    assert commands, "no run: steps found"
    suite = " ".join(report_test.suite_command()[:1])
    build = " ".join(report_test.build_command(REPO, REPO)[:4])
    allowed = ("ci/setup", suite, build)
    assert (REPO / "ci" / "test").read_text().count("ci/setup") >= 1  # ci/test runs ci/setup
    for command in commands:
        assert command.split(" ")[0] in allowed or command.startswith(allowed), command
    assert any(c.startswith(build) for c in commands), "the workflow does not build the report"
    assert any(c.startswith(suite) for c in commands) and any(c == "ci/setup" for c in commands)


def test_the_workflow_uses_no_allure_2():
    text = WORKFLOW.read_text()
    assert "allure-commandline" not in text and "npx" not in text and "allure generate" not in text
