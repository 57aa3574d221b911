"""Every rule module has one import name, its package's: what pytest imports in a checkout,
what the registry and the catalogue import (tests/integration/test_packaging.py asks the
installed suite the same)."""

from __future__ import annotations

import importlib
import sys

import pytest

from amqp_conformance import conformance
from amqp_conformance.fixtures.core import rules
from tests.module_names import rule_module_names
from tests.suite_runs import REPO

ON_DEMAND_TOO = "perf or long or fuzz or not (perf or long or fuzz)"  # every case, the on-demand ones included


@pytest.mark.timeout(300)  # a whole collection in a fresh interpreter
def test_pytest_in_a_checkout_imports_each_rule_module_by_its_package_name():
    seen = rule_module_names(sys.executable, "conformance", "-m", ON_DEMAND_TOO, cwd=REPO)
    files = sorted(rules.CONFORMANCE_DIR.rglob("test_*.py"))
    assert seen["names"] == sorted(rules.module_name(path) for path in files)
    assert all(name.startswith(f"{conformance.__name__}.") for name in seen["names"])
    assert seen["other_names"] == [], "a rule file imported under a second name"


def test_a_module_name_is_its_file_under_the_package():
    path = next(rules.CONFORMANCE_DIR.glob("consumer_acks/test_ack_04_*.py"))
    assert rules.module_name(path) == f"{conformance.__name__}.consumer_acks.{path.stem}"
    assert importlib.import_module(rules.module_name(path)).__file__ == str(path)
    assert rules.module_name(rules.CONFORMANCE_DIR / "consumer_acks" / "__init__.py") == \
        f"{conformance.__name__}.consumer_acks"
    assert rules.module_name(REPO / "fixtures" / "core" / "rules.py") is None
    assert rules.declaration_of("ACK-04").id == "ACK-04"
