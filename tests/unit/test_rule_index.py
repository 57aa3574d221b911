"""The rule index (conformance/index.json, amqp_conformance.fixtures.core.rule_index): the stored
one is what the catalogue collects to now, a run narrowed by -k or -m selects from it exactly
what pytest's own collection selects, and the floor below the rules finds the catalogue
without importing it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from amqp_conformance.fixtures.core import rule_index
from tests.suite_runs import REPO

REBUILD = ".venv/bin/python -m amqp_conformance.fixtures.commands.catalogue --update-index"


@pytest.mark.timeout(600)  # a collection of the whole catalogue: seconds, minutes on a loaded machine
def test_the_stored_index_is_the_catalogue_as_it_collects_now():
    fresh = subprocess.run([sys.executable, "-m", "amqp_conformance.fixtures.commands.catalogue", "--index"],
                           cwd=REPO, capture_output=True, text=True, timeout=300)
    assert fresh.returncode == 0, fresh.stderr[-3000:]
    stored = rule_index.INDEX_FILE.read_text()
    assert stored == fresh.stdout, f"the rule index is stale: rebuild it with `{REBUILD}` and commit it"


def test_an_edited_catalogue_makes_the_stored_index_unusable(monkeypatch):
    index = rule_index.load()
    assert index is not None and index.fresh()
    some_module = next(iter(index.sources))
    monkeypatch.setattr(rule_index, "digests", lambda: {**index.sources, some_module: "0" * 40})
    assert not index.fresh()


# Each expression's selection from the index, next to the one pytest's own collection makes
# in a forked child (amqp_conformance.fixtures.plugin.selection.collect), in one interpreter.
COMPARE = r"""
import json, os, sys
from _pytest.config import _prepareconfig
from amqp_conformance.fixtures.plugin import selection
from amqp_conformance.fixtures.commands.catalogue import load_all_rules
os.environ[selection.PLANNING_ENV] = "1"  # configure without planning: the comparison plans
load_all_rules()  # once: each forked collection finds the rule modules imported
found = []
for option, expression in json.loads(sys.argv[1]):
    config = _prepareconfig(["conformance", option, expression, "-p", "no:xdist"])
    config._do_configure()
    from_index = selection.from_index(config)
    collected = selection.collect(["conformance", option, expression])
    config._ensure_unconfigure()
    found.append([option, expression, from_index and [from_index.cases, from_index.files],
                  collected and [collected.cases, collected.files]])
print(json.dumps(found))
"""
EXPRESSIONS = [("-k", "ACK-04 and not nack"), ("-k", "FLT-05"), ("-m", "consumer_acks and not fault"),
               ("-m", "perf"), ("-m", "may_wedge_broker"), ("-k", "nosuchthing")]


@pytest.mark.timeout(900)  # one collection of the catalogue per expression
def test_a_selection_from_the_index_is_the_one_pytest_collects():
    done = subprocess.run([sys.executable, "-c", COMPARE, json.dumps(EXPRESSIONS)], cwd=REPO,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    for option, expression, from_index, collected in json.loads(done.stdout.splitlines()[-1]):
        assert from_index is not None, f"{option} {expression!r}: the index was not used"
        assert from_index == collected, f"{option} {expression!r}"


@pytest.mark.parametrize("module", ["amqp_conformance.fixtures.core.rules", "amqp_conformance.fixtures.core.rule_index"])
def test_the_floor_below_the_rules_finds_them_without_importing_them(module):
    code = (f"import sys, {module}; "
            "print(sorted(m for m in sys.modules if m.startswith('amqp_conformance.conformance')))")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
