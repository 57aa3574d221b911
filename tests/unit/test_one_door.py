"""One door into the engine: rule modules import from amqp_conformance.fixtures.vocabulary (the
public face) and from nowhere else of the suite's own. pyproject.toml's contract forbids the
packages around it; here every import line of conformance/ is counted, submodules of the
vocabulary included, which the contract cannot name one by one."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from amqp_conformance.fixtures import vocabulary
from amqp_conformance.fixtures.core.rules import CONFORMANCE_DIR
from tests.suite_runs import REPO

FACE = vocabulary.__name__
OWN = FACE.split(".")[0]


def import_lines():
    """Every import statement of the catalogue that names one of the suite's own modules:
    (file, line, module imported from, names)."""
    for path in sorted(CONFORMANCE_DIR.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").split(".")[0] == OWN):
                yield path, node.lineno, "." * node.level + (node.module or ""), [a.name for a in node.names]
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == OWN:
                        yield path, node.lineno, alias.name, []


def test_rule_modules_import_the_engine_only_through_the_public_face():
    around = [f"{path.relative_to(REPO)}:{line}: from {module}" for path, line, module, _ in import_lines()
              if module != FACE]
    assert around == []


def test_every_name_a_rule_module_imports_is_offered_by_the_face():
    offered = set(vocabulary.__all__)
    missing = [f"{path.relative_to(REPO)}:{line}: {name}" for path, line, module, names in import_lines()
               if module == FACE for name in names if name not in offered]
    assert missing == []


def test_what_the_face_offers_on_first_use_is_loaded_only_then():
    homes = sorted(vocabulary.ON_FIRST_USE)
    code = (f"import sys, {FACE} as face; print(sorted(h for h in {homes!r} if h in sys.modules)); "
            "print('hypothesis' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]", "False"]


@pytest.mark.parametrize("name", sorted(vocabulary._HOME_OF))
def test_each_name_offered_on_first_use_is_found_at_its_home(name):
    assert getattr(vocabulary, name) is not None


def test_the_face_offers_each_name_once():
    # Two areas offering one name (CN's and FR's connection-exception verifier once did) leave
    # the face with whichever block came last, and the other area's rules calling the wrong one.
    from collections import Counter

    from amqp_conformance.fixtures import vocabulary

    assert [name for name, count in Counter(vocabulary.__all__).items() if count > 1] == []
