"""What the import contracts cannot see, seen at run time: importing a module runs the
__init__ of every package above it, and an import inside a function runs only when it is
called; import-linter reads neither as the importer's dependency. Here each module the
contracts constrain is imported in a fresh interpreter together with every module its
functions import, and nothing a contract forbids it may be loaded
(brokers/rabbitmq_cluster.py's lazy import of the fault layer's Toxiproxy client once loaded
sixteen vocabulary modules through amqp_faults/__init__.py)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import tomllib

import grimp
import pytest

from tests.suite_runs import REPO

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
CONTRACTS = PYPROJECT["tool"]["importlinter"]["contracts"]
FOLDERS = PYPROJECT["tool"]["setuptools"]["package-dir"]


def _within(module: str, packages) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def forbidden_for(module: str) -> set[str]:
    """The packages the contracts forbid `module` to import: the layers above its own, and
    the forbidden modules of every contract that names it as a source."""
    forbidden = set()
    for contract in CONTRACTS:
        if contract["type"] == "layers":
            # layers named in full, or relative to each of the contract's containers
            for layers in ([[f"{c}.{layer}" for layer in contract["layers"]] for c in contract["containers"]]
                           if "containers" in contract else [contract["layers"]]):
                own = next((i for i, layer in enumerate(layers) if _within(module, [layer])), None)
                if own is not None:
                    forbidden.update(layers[:own])
        elif (contract["type"] == "forbidden" and _within(module, contract["source_modules"])
              and not contract.get("allow_indirect_imports")):  # that one forbids direct imports only: lint-imports
            forbidden.update(contract["forbidden_modules"])
    return forbidden


def _file_of(module: str):
    for package, folder in FOLDERS.items():
        if _within(module, [package]):
            path = REPO / folder / module[len(package) + 1:].replace(".", "/") if module != package else REPO / folder
            return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    return None


def lazily_imported(module: str) -> set[str]:
    """The suite's modules `module` imports inside its functions (absolute or relative)."""
    path = _file_of(module)
    tree = ast.parse(path.read_text())
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for function in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        for node in ast.walk(function):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join([*package.split(".")[:len(package.split(".")) - node.level + 1], *filter(None, [base])])
                found.add(base)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
    return {name for name in found if name.startswith("amqp_conformance.")}


def constrained_modules() -> list[str]:
    graph = grimp.build_graph(*FOLDERS)
    return sorted(m for m in graph.modules if forbidden_for(m) - {"fixtures", "reports", "conformance"})


LOADER = """
import importlib, json, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
print(json.dumps(sorted(m for m in sys.modules if m.startswith("amqp_conformance.") or m in ("fixtures", "reports", "conformance"))))
"""


def loaded_by(modules: list[str]) -> list[str]:
    done = subprocess.run([sys.executable, "-c", LOADER, *modules], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.timeout(240)  # a few interpreters, each importing a layer whole
def test_no_module_loads_what_its_contracts_forbid_with_its_lazy_imports():
    modules = constrained_modules()
    assert "amqp_conformance.fixtures.brokers.rabbitmq_cluster" in modules and len(modules) > 40
    # Modules forbidden the same packages are loaded together (one interpreter each group):
    # whatever forbidden module the group loads, one of them loaded it; each alone says which.
    groups: dict[frozenset, list[str]] = {}
    for module in modules:
        groups.setdefault(frozenset(forbidden_for(module)), []).append(module)
    broken = {}
    for forbidden, members in groups.items():
        if not any(_within(m, forbidden) for m in loaded_by(sorted(set(members).union(*map(lazily_imported, members))))):
            continue
        for module in members:
            offending = [m for m in loaded_by([module, *sorted(lazily_imported(module))]) if _within(m, forbidden)]
            if offending:
                broken[module] = offending
    assert broken == {}


def test_the_check_sees_a_package_init_that_loads_a_higher_layer():
    # The fault floor stands on the brokers, the wire and core: the vocabulary above it is
    # forbidden to it, and its injector loads none of it (it once stood on the vocabulary's
    # Broker and History); the vocabulary's fault steps do load the injector.
    assert "amqp_conformance.fixtures.vocabulary" in forbidden_for("amqp_conformance.amqp_faults.client")
    assert "amqp_conformance.amqp_faults.partitions" in lazily_imported("amqp_conformance.fixtures.plugin.session")
    assert not any(_within(m, ["amqp_conformance.fixtures.vocabulary"])
                   for m in loaded_by(["amqp_conformance.amqp_faults.faults"]))
    assert "amqp_conformance.amqp_faults.faults" in loaded_by(["amqp_conformance.fixtures.vocabulary.fault_workloads"])
