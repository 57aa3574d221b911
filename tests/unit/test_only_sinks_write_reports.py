"""Only the sinks write a case to JUnit or Allure, and a sink never changes the record it
is given (issue 37): other layers declare what a case shows (markers: case_parameter,
case_property, case_tag) and the judge builds the record whole."""

from __future__ import annotations

import ast
import re

from tests.suite_runs import REPO

SINKS = ("fixtures/plugin/case_sinks.py", "fixtures/plugin/allure_sink.py", "fixtures/plugin/baseline_check.py",
         "fixtures/plugin/run_store.py", "fixtures/plugin/junit_file.py")
WRITES_A_REPORT = re.compile(r"user_properties\s*(\.(append|extend|insert)\(|\+=|\[)|allure_(label|link)\b|"
                             r"allure\.(dynamic|attach|step)\b")


def _sources():
    for folder in ("fixtures", "toxiproxy/amqp_faults", "conformance"):
        yield from sorted((REPO / folder).rglob("*.py"))


def test_no_module_but_a_sink_writes_junit_properties_or_allure():
    writers = sorted(str(path.relative_to(REPO)) for path in _sources() if WRITES_A_REPORT.search(path.read_text()))
    assert set(writers) <= set(SINKS), writers


def test_no_sink_changes_the_record_it_is_given():
    for name in SINKS:
        tree = ast.parse((REPO / name).read_text())
        for function in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name in ("at_case", "collected")):
            record = function.args.args[-1].arg  # at_case(self, item, result), collected(self, result)
            for node in ast.walk(function):
                targets = node.targets if isinstance(node, ast.Assign) else \
                    [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
                changed = [t for t in targets if isinstance(t, (ast.Attribute, ast.Subscript))
                           and isinstance(t.value, ast.Name) and t.value.id == record]
                assert not changed, f"{name}: {function.name} changes {record}.{ast.unparse(changed[0])}"
