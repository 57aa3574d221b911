"""Every third-party package the suite imports is declared in pyproject.toml (issue 49: the
fault layer imported `requests` without declaring it, relying on toxiproxy-python to pull
it in)."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib import metadata

from tests.suite_runs import REPO

SOURCES = ("fixtures", "reports", "toxiproxy/amqp_faults", "conformance")


def _declared() -> set[str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = [*project["dependencies"], *(d for extra in project["optional-dependencies"].values() for d in extra)]
    return {re.split(r"[<>=!~\[; ]", d, maxsplit=1)[0].lower().replace("_", "-") for d in wanted}


def _imported() -> set[str]:
    names = set()
    for folder in SOURCES:
        for path in (REPO / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Import):
                    names |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"amqp_conformance", "__future__"}


def test_every_third_party_import_is_declared():
    distributions = metadata.packages_distributions()
    declared = _declared()
    missing = {}
    for name in sorted(_imported()):
        owners = {d.lower().replace("_", "-") for d in distributions.get(name, [])}
        if owners and not owners & declared:
            missing[name] = sorted(owners)
    assert not missing, f"imported but not declared in pyproject.toml: {missing}"
