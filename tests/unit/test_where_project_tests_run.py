"""Every project test runs in ci/test or in ci/mutation, and ci/test's part of a
whole-catalogue run has a rule of every area such a run selects."""

from __future__ import annotations

import itertools
import re
import shlex
import subprocess
import sys

from _pytest.mark.expression import Expression

from amqp_conformance.fixtures.core.rules import AREAS
from tests.conftest import SPREAD_FILES
from tests.suite_runs import (AREAS_NOT_IN_A_CATALOGUE_RUN, ONE_RULE_PER_AREA, REPO, REPRESENTATIVE_RULES,
                              SEVEN_RULES)

COMMANDS = ("ci/test", "ci/mutation")


def pytest_arguments(command: str) -> list[str]:
    """The arguments of the pytest the script ends in (`exec .venv/bin/pytest ...`)."""
    (line,) = [line for line in (REPO / command).read_text().splitlines() if line.startswith("exec .venv/bin/pytest ")]
    return shlex.split(line.removeprefix("exec .venv/bin/pytest "))


def marker_expression(arguments: list[str]) -> str:
    return arguments[arguments.index("-m") + 1] if "-m" in arguments else ""


def test_both_commands_collect_every_project_test_and_one_of_them_selects_each():
    expressions = {}
    for command in COMMANDS:
        arguments = pytest_arguments(command)
        assert arguments[0] == "tests", f"{command} must collect the whole tests/ tree: {arguments}"
        expressions[command] = marker_expression(arguments)
    named = sorted({name for text in expressions.values() for name in re.findall(r"[A-Za-z_]\w*", text)}
                   - {"and", "or", "not"})
    assert "full" in named, expressions
    compiled = {command: Expression.compile(text) if text else None for command, text in expressions.items()}
    # Whatever markers a test carries, one command or the other selects it.
    for size in range(len(named) + 1):
        for carried in itertools.combinations(named, size):
            chosen = [command for command, expression in compiled.items()
                      if expression is None or expression.evaluate(lambda name, **_: name in carried)]
            assert chosen, f"a test marked {carried or 'with none of ' + str(named)} runs in neither {COMMANDS}"


def test_ci_test_leaves_the_full_tests_to_ci_mutation():
    def selects(command: str, markers: set[str]) -> bool:
        return Expression.compile(marker_expression(pytest_arguments(command))).evaluate(
            lambda name, **_: name in markers)
    assert not selects("ci/test", {"full", "integration"})
    assert selects("ci/mutation", {"full", "integration"})
    assert selects("ci/test", {"integration"}) and selects("ci/test", set())


def test_the_representative_part_has_a_rule_of_every_area_a_catalogue_run_selects():
    areas = {rule.split("-")[0] for rule in REPRESENTATIVE_RULES}
    assert set(AREAS) - areas == set(AREAS_NOT_IN_A_CATALOGUE_RUN), (
        f"areas with no rule in tests/suite_runs.py ONE_RULE_PER_AREA: {sorted(set(AREAS) - areas - set(AREAS_NOT_IN_A_CATALOGUE_RUN))}")
    assert set(SEVEN_RULES) <= set(REPRESENTATIVE_RULES)
    assert all(rule.startswith(area + "-") for area, rule in ONE_RULE_PER_AREA.items())


def test_a_file_whose_tests_go_one_by_one_shares_no_module_fixture():
    """Its tests may run on different workers at once: a module-scoped fixture would start
    on each, and two tests would use it at the same time."""
    for name in sorted(SPREAD_FILES):
        text = (REPO / name).read_text()
        assert 'scope="module"' not in text and 'scope="package"' not in text, name


def test_ci_test_s_mutants_break_every_named_rule():
    """ci/test's share of the mutation score (CI_SUBSET) kills a mutant of each of the seven
    named rules; the other mutants run in ci/mutation."""
    from tests.mutation.mutants import MUTANTS
    from tests.mutation.test_mutation_score import CI_SUBSET

    broken = {rule for name in CI_SUBSET for rule in MUTANTS[name].breaks}
    assert set(SEVEN_RULES) <= broken, sorted(set(SEVEN_RULES) - broken)


def test_every_file_on_the_pipeline_tests_spark_session_goes_to_their_worker():
    """One SparkSession (a session-scoped fixture, so one per worker) serves every file that
    imports the pipeline tests' `spark` fixture."""
    from tests.conftest import PIPELINE_TESTS, unit_costs, unit_of

    sharing = sorted(f"tests/integration/{path.name}" for path in (REPO / "tests" / "integration").glob("test_*.py")
                     if re.search(r"from tests\.integration\.test_reports_pipeline import .*\bspark\b", path.read_text()))
    assert "tests/integration/test_reports_perf.py" in sharing and "tests/integration/test_reports_views.py" in sharing
    for path in sharing:
        assert unit_of(f"{path}::test_a") == unit_of(f"{PIPELINE_TESTS}::test_b") == PIPELINE_TESTS, path
    costs = unit_costs([f"{path}::test_a" for path in sharing] + [f"{PIPELINE_TESTS}::test_b"])
    assert list(costs) == [PIPELINE_TESTS] and costs[PIPELINE_TESTS] > 1


def test_every_file_on_the_patient_node_goes_to_one_worker():
    """One patient node (tests/conftest.py `patient_rabbitmq`, one per worker) serves every
    file that judges the suite on it."""
    from tests.conftest import MUTATION_SCORE, unit_of

    sharing = sorted(str(path.relative_to(REPO)) for path in (REPO / "tests").rglob("test_*.py")
                     if re.search(r"def \w+\([^)]*\bpatient_rabbitmq\b", path.read_text()))
    assert MUTATION_SCORE in sharing and len(sharing) > 1, sharing
    assert {unit_of(f"{path}::test_a") for path in sharing} == {MUTATION_SCORE}


def test_the_project_tests_run_without_xdist():
    """`pytest tests -p no:xdist` (one process, no worker pool) collects instead of
    stopping at tests/conftest.py's scheduler hook, which xdist alone declares."""
    done = subprocess.run([sys.executable, "-m", "pytest", "tests/unit/test_where_project_tests_run.py", "-p", "no:xdist",
                           "-p", "no:cacheprovider", "--collect-only", "-q"], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
