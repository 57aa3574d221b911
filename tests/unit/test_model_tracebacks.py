"""A model test's failure is reported with a short traceback, whatever --tb the run
gives (fixtures/models/plugin): the long form of a failed Hypothesis example, with the
source and arguments of every frame, once crashed CPython 3.11.7 while pytest built it.
The failing line and the failure's notes (the shrunk example, the seed) stay."""

import os
import subprocess
import sys
import textwrap

import pytest

from tests.suite_runs import REPO

# Two pytest runs in subprocesses, each with its own 120 s bound: the 60 s default cut one at load 20.
pytestmark = pytest.mark.timeout(300)

CONFTEST = 'pytest_plugins = ["amqp_conformance.fixtures.models.plugin"]\n'
CASES = '''
from amqp_conformance.fixtures.core.rules import CONFIRMS, Rule, Strength

# A model test covers catalogue rules (a Rule, not declared: MDL-99 is no catalogue id).
RULE = Rule("MDL-99", "a model check", Strength.MUST, CONFIRMS, "", covers=("ACK-01", "ACK-02"))


def step_of_the_model(value):
    only_the_long_form_shows_this_line = value
    error = AssertionError("ACK-01: the model and the broker disagree")
    error.add_note("shrunk example (2 lines, seed 7)")
    raise error


def test_model_check():
    step_of_the_model(1)
'''


def checkout_env() -> dict:
    """This checkout's fixtures and fault plugin, not the ones the shared venv installed."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "toxiproxy")])}


def run(tmp_path, *args):
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_model.py").write_text(textwrap.dedent(CASES))
    env = checkout_env()
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "-p",
                           "no:xdist", "--rootdir", str(tmp_path), "-c", os.devnull, str(tmp_path), *args],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def test_a_model_failure_is_shown_short_even_under_tb_long(tmp_path):
    for tb in ([], ["--tb=long"]):
        done = run(tmp_path, *tb)
        text = done.stdout + done.stderr
        assert done.returncode == 1 and "1 failed" in text, text
        assert "only_the_long_form_shows_this_line" not in text, text
        assert "raise error" in text and "in step_of_the_model" in text, text
        assert "the model and the broker disagree" in text and "shrunk example (2 lines, seed 7)" in text, text


def test_other_tests_keep_the_long_form(tmp_path):
    (tmp_path / "conftest.py").write_text(CONFTEST)
    done = run(tmp_path)
    assert "only_the_long_form_shows_this_line" not in done.stdout  # the model test: short
    (tmp_path / "test_model.py").write_text(textwrap.dedent(CASES).replace("RULE = ", "NOT_A_RULE = "))
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "-p",
                           "no:xdist", "--rootdir", str(tmp_path), "-c", os.devnull, str(tmp_path)],
                          cwd=tmp_path, env=checkout_env(), capture_output=True,
                          text=True, timeout=120)
    assert "only_the_long_form_shows_this_line" in done.stdout, done.stdout
