"""The names pytest imports the rule modules under, asked of a fresh interpreter: a
checkout's (`pytest conformance`) and an installed suite's (`pytest --pyargs
amqp_conformance.conformance`) must be the same, one name per module."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

# Collects the rule modules and prints, as JSON, the module name of every collected case
# and every module in sys.modules that holds a rule file under another name.
PROBE = """
import json, sys
import pytest

class Probe:
    def pytest_collection_finish(self, session):
        from amqp_conformance.fixtures.core.rules import CONFORMANCE_DIR, module_name
        names = sorted({item.module.__name__ for item in session.items if getattr(item, "module", None)})
        others = sorted(name for name, module in list(sys.modules.items())
                        if module_name(getattr(module, "__file__", None) or "/") not in (None, name))
        print("PROBE " + json.dumps({"names": names, "other_names": others}))

pytest.main([*sys.argv[1:], "--collect-only", "-q", "-p", "no:xdist", "-p", "no:cacheprovider"], plugins=[Probe()])
"""


def rule_module_names(python: str, *args: str, cwd: Path, env: dict[str, str] | None = None) -> dict:
    """{"names": the module of every collected case, "other_names": rule files in
    sys.modules under a name that is not their own}."""
    done = subprocess.run([python, "-c", PROBE, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)
    line = next((line for line in done.stdout.splitlines() if line.startswith("PROBE ")), None)
    assert line is not None, done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(line[len("PROBE "):])
