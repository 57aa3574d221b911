"""Importing the suite's machinery does nothing but define it (and declare rules): no
environment variable is read and no other library is changed at import; what the
environment configures is read when it is used."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.suite_runs import REPO

# Every module of the machinery, imported with settings no import could parse.
IMPORT_ALL = """
import importlib, json, pkgutil, sys
import requests, toxiproxy.api
from amqp_conformance import amqp_faults, fixtures, reports
names = [m.name for package in (fixtures, amqp_faults, reports)
         for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".") if not m.name.endswith("__main__")]
for name in names:
    importlib.import_module(name)
print(json.dumps({"modules": len(names), "requests_untouched": toxiproxy.api.requests is requests,
                  "validation_untouched": toxiproxy.api.validate_response.__module__ == "toxiproxy.api"}))
"""
UNPARSABLE = {name: "not-a-number" for name in ("AMQP_PERF_SECONDS", "AMQP_PERF_MAX_MESSAGES", "AMQP_PERF_FILL_SECONDS",
                                                "AMQP_PERFTEST_SECONDS")}


def test_importing_the_machinery_reads_no_setting_and_patches_no_library():
    done = subprocess.run([sys.executable, "-c", IMPORT_ALL], cwd=REPO, capture_output=True, text=True, timeout=240,
                          env={**os.environ, **UNPARSABLE, "AMQP_CONFORMANCE_CACHE": "/nonexistent/amqpc-cache"})
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["modules"] > 60 and seen["requests_untouched"] and seen["validation_untouched"], seen


def test_settings_are_read_when_used(monkeypatch):
    from amqp_conformance.fixtures.brokers import provisioned
    from amqp_conformance.fixtures.vocabulary import perf

    monkeypatch.setenv("AMQP_PERF_SECONDS", "0.25")
    monkeypatch.setenv("AMQP_CONFORMANCE_CACHE", "/elsewhere")
    assert perf.budget().measure_seconds == 0.25
    assert str(provisioned.roots()) == "/elsewhere/roots"


# The fuzzing plugin configured as in a run that does not name the fuzzer, then as in one that does.
FUZZ_CONFIGURED = """
import sys, types
from amqp_conformance.fixtures.plugin import fuzzing
options = dict(fuzz_examples=7, fuzz_seed=1, fuzz_time_net=9.0, run_dir=None, fuzz_replay=None)
def configure(markexpr):
    option = types.SimpleNamespace(markexpr=markexpr)
    fuzzing.pytest_configure(types.SimpleNamespace(option=option, getoption=lambda name, *default: options[name]))
    return "hypothesis" in sys.modules
print(configure("must and not fault"), configure("fuzz"))
"""


def test_the_fuzzer_and_hypothesis_load_only_in_a_run_that_names_the_fuzzer():
    # Hypothesis is about 1 s of CPU to import, in each of a default run's dozen processes.
    done = subprocess.run([sys.executable, "-c", FUZZ_CONFIGURED], cwd=REPO, capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["False", "True"]


# The suite's plugins loaded as a run loads them, then a Toxiproxy server's client made.
PLUGINS_THEN_TOXIPROXY = """
import importlib, sys
from amqp_conformance.fixtures.plugin import SUITE_PLUGINS
for name in SUITE_PLUGINS:
    importlib.import_module(name)
loaded = "requests" in sys.modules
from amqp_conformance.amqp_faults.client import ToxiproxyAPI
ToxiproxyAPI("http://127.0.0.1:1")
print(loaded, "requests" in sys.modules)
"""


def test_requests_loads_only_in_a_process_that_talks_to_toxiproxy():
    # 0.12 s of CPU in each process of a run; most of a run's processes inject no fault.
    done = subprocess.run([sys.executable, "-c", PLUGINS_THEN_TOXIPROXY], cwd=REPO, capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["False", "True"]
