"""The package's shape: one import package (amqp_conformance), every subpackage in the
wheel's list, and no import cycle anywhere in it. The layers themselves are import-linter
contracts in pyproject.toml (ci/test runs lint-imports)."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

import grimp

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
FOLDERS = PYPROJECT["tool"]["setuptools"]["package-dir"]  # subpackage -> folder of the checkout


def test_every_package_of_the_checkout_is_in_the_wheel_and_only_those():
    found = {".".join([package, *init.parent.relative_to(REPO / folder).parts])
             for package, folder in FOLDERS.items() for init in (REPO / folder).rglob("__init__.py")}
    assert set(PYPROJECT["tool"]["setuptools"]["packages"]) == found
    assert all(package.startswith("amqp_conformance.") for package in found)


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, edges = work[-1]
            for imported in edges:
                if imported not in graph.modules:
                    continue
                if imported not in index:
                    index[imported] = low[imported] = len(index)
                    stack.append(imported)
                    on_stack.add(imported)
                    work.append((imported, iter(sorted(graph.find_modules_directly_imported_by(imported)))))
                    break
                if imported in on_stack:
                    low[module] = min(low[module], index[imported])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[module])
                if low[module] == index[module]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == module:
                            break
                    if len(group) > 1:
                        groups.append(sorted(group))
    return groups


def test_no_module_imports_itself_back_through_others():
    graph = grimp.build_graph(*FOLDERS)
    assert len(graph.modules) > 100
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    graph = grimp.ImportGraph()
    for module in ("a", "a.x", "a.y", "a.z"):
        graph.add_module(module)
    graph.add_import(importer="a.x", imported="a.y")
    graph.add_import(importer="a.y", imported="a.x")
    graph.add_import(importer="a.z", imported="a.x")
    assert _cycles(graph) == [["a.x", "a.y"]]


# Files with one job each: none of the package's own files (rule modules aside, one per
# rule) grows past this many lines.
MOST_LINES = 500
# Base names two of the package's files share, each pair on two floors that say why.
SHARED_BASE_NAMES = {
    "handshake.py": "the wire's handshake driven step by step, and the vocabulary's connection steps over it",
    "history.py": "the vocabulary's history recorder, and the checking floor's pure checker of a history",
    "fuzzing.py": "the models' framing fuzzer, and the plugin's options and bystander for it",
}


def _package_files() -> list[Path]:
    """The package's Python files in the checkout (stored runs under reports/ are data)."""
    tracked = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.py"],
                             cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    folders = tuple(f"{folder}/" for folder in set(FOLDERS.values()))
    return sorted(REPO / name for name in tracked
                  if name.startswith(folders) and not Path(name).name.startswith("test_"))


def test_no_file_of_the_package_grows_past_its_limit():
    long = {str(path.relative_to(REPO)): lines for path in _package_files()
            if (lines := len(path.read_text().splitlines())) > MOST_LINES}
    assert long == {}


def test_files_share_a_base_name_only_across_floors_that_say_why():
    folders: dict[str, set[Path]] = {}
    for path in _package_files():
        if path.name not in ("__init__.py", "__main__.py", "conftest.py"):
            folders.setdefault(path.name, set()).add(path.parent)
    shared = {name for name, where in folders.items() if len(where) > 1}
    assert shared == set(SHARED_BASE_NAMES)
