"""The installed suite: pip install, then one command, as any user, from any directory.

The integration test builds the wheel, installs it into a fresh virtual environment of
the system Python (no checkout on sys.path), and runs `amqp-conformance` as `nobody`
from a directory outside the repository against a RabbitMQ node this test started as
root: the seven named rules, stored in the run folder named by --run-dir.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

from amqp_conformance.amqp_faults.server import cached_binary
from amqp_conformance.fixtures.core.cache import cache_dir
from amqp_conformance.fixtures.commands.cli import pytest_args
from amqp_conformance.fixtures.plugin import SUITE_PLUGINS
from amqp_conformance.fixtures.plugin.session import SUITE_INI
from tests.module_names import rule_module_names
from tests.suite_runs import REPO, SEVEN_RULES

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
CACHE = cache_dir()
INSTALL_TIMEOUT_S = 300
RUN_TIMEOUT_S = 300


def test_the_plugin_supplies_the_checkouts_pytest_settings():
    """An installed run has no pyproject.toml: the plugin gives the same settings."""
    ini = PYPROJECT["tool"]["pytest"]["ini_options"]
    assert {k: str(ini[k]).lower() if isinstance(ini[k], bool) else str(ini[k]) for k in SUITE_INI} == SUITE_INI


def test_one_entry_point_loads_every_part_of_the_suite():
    """pytest11 names amqp_conformance.fixtures.plugin alone; it loads each plugin module of the suite,
    the same list a checkout's conftest.py and the command load."""
    import importlib

    import conftest

    assert PYPROJECT["project"]["entry-points"]["pytest11"] == {"amqp_conformance.fixtures.plugin": "amqp_conformance.fixtures.plugin"}
    assert conftest.pytest_plugins == ["amqp_conformance.fixtures.plugin"] and "amqp_conformance.fixtures.plugin" in pytest_args([], Path("r"))
    for name in SUITE_PLUGINS:
        assert any(callable(v) and k.startswith("pytest_") for k, v in vars(importlib.import_module(name)).items()), name


def test_the_command_stores_its_run_like_ci_suite(tmp_path):
    args = pytest_args(["--amqp-url", "amqp://h/", "-k", "ACK-03"], tmp_path / "run")
    assert args[:2] == ["--pyargs", "amqp_conformance.conformance"]
    assert ["-n", "auto"] == args[args.index("-n"):args.index("-n") + 2]  # the suite's count (amqp_conformance.fixtures.plugin.selection)
    assert f"--run-dir={tmp_path / 'run'}" in args
    assert f"--alluredir={tmp_path / 'run' / 'allure-results'}" in args
    assert f"--junitxml={tmp_path / 'run' / 'junit.xml'}" in args
    assert "-n" not in pytest_args(["-p", "no:xdist"], tmp_path)
    assert not any(a.startswith("--run-dir=") for a in pytest_args(["--run-dir", "x"], tmp_path))


# -- the wheel, installed and run as nobody ---------------------------------------------------
def _system_python() -> str | None:
    """A Python >= 3.11 that `nobody` may run (the checkout's venv may live under /root)."""
    for candidate in ("/usr/bin/python3", shutil.which("python3")):
        if not candidate:
            continue
        done = subprocess.run([candidate, "-c", "import sys, venv, ensurepip; print(sys.version_info >= (3, 11))"],
                              capture_output=True, text=True)
        if done.stdout.strip() == "True":
            return candidate
    return None


def _run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, f"{' '.join(command)}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def _wheelhouse(wheel: Path) -> Path:
    """The wheels of the pinned dependencies, fetched once (through pip's cache) and
    kept under the cache by the hash of the dependency list: later runs install offline."""
    pins = "\n".join(PYPROJECT["project"]["dependencies"])
    house = CACHE / "wheelhouse" / hashlib.sha256(pins.encode()).hexdigest()[:16]
    if not (house / ".complete").exists():
        house.mkdir(parents=True, exist_ok=True)
        _run([sys.executable, "-m", "pip", "wheel", "-q", "-w", str(house), str(wheel)],
             env={**os.environ, "PIP_CACHE_DIR": str(CACHE / "pip")}, timeout=INSTALL_TIMEOUT_S)
        (house / wheel.name).unlink(missing_ok=True)  # the project's own wheel is built afresh each time
        (house / ".complete").write_text(pins)
    return house


@pytest.fixture(scope="module")
def sandbox():
    """A directory outside the repository that `nobody` can read (the venv) and write
    (its working directory and the run store)."""
    root = Path(tempfile.mkdtemp(prefix="amqp-conformance-packaging-"))
    root.chmod(0o755)
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def installed(sandbox) -> Path:
    """The wheel, built from the checkout and installed into a fresh venv: its bin/."""
    python = _system_python()
    if python is None:
        pytest.skip("no system Python >= 3.11 with venv that an unprivileged user can run")
    # From a copy of the checkout's files (tracked, or new and not ignored): a stale
    # egg-info or build/ of the worktree must not put into the wheel what the project omits.
    source, dist = sandbox / "source", sandbox / "dist"
    listed = _run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO).stdout
    for name in filter(None, listed.split("\0")):
        if (REPO / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(source)],
         env={**os.environ, "PIP_CACHE_DIR": str(CACHE / "pip")}, timeout=INSTALL_TIMEOUT_S)
    (wheel,) = dist.glob("amqp_conformance-*.whl")
    shipped = set(zipfile.ZipFile(wheel).namelist())
    data = {f"amqp_conformance/{p.relative_to(REPO)}" for p in (REPO / "conformance").rglob("*.toml")}
    assert data and data <= shipped, f"package data missing from the wheel: {sorted(data - shipped)}"
    venv = sandbox / "venv"
    _run([python, "-m", "venv", str(venv)], timeout=INSTALL_TIMEOUT_S)
    _run([str(venv / "bin" / "pip"), "install", "-q", "--no-index", "--find-links", str(_wheelhouse(wheel)),
          str(wheel)], timeout=INSTALL_TIMEOUT_S)
    return venv / "bin"


@pytest.fixture(scope="module")
def rabbitmq(plain_rabbitmq):
    """The worker's plain RabbitMQ node (tests/conftest.py) and its URL."""
    target = plain_rabbitmq.target
    yield plain_rabbitmq, f"amqp://{target.username}:{target.password}@{target.host}:{target.port}/{target.vhost}"


@pytest.mark.integration
@pytest.mark.timeout(INSTALL_TIMEOUT_S * 3 + RUN_TIMEOUT_S)  # the wheel, the dependencies, a venv and a run
def test_the_installed_command_runs_the_seven_rules_as_nobody(installed, sandbox, rabbitmq):
    runuser = shutil.which("runuser")
    if os.geteuid() != 0 or runuser is None:
        pytest.skip("runs the suite as `nobody` through runuser, which needs root")
    toxiproxy = cached_binary()
    assert toxiproxy.exists(), f"{toxiproxy} is missing: ci/setup builds it (RD-02 needs network faults)"
    node, url = rabbitmq
    work = sandbox / "work"
    work.mkdir()
    shutil.chown(work, "nobody", "nogroup")
    # nobody cannot read root's cache: the binary goes where it can (--toxiproxy-server).
    shutil.copy(toxiproxy, sandbox / "toxiproxy-server")
    (sandbox / "toxiproxy-server").chmod(0o755)
    store = work / "runs" / "packaging"
    selection = f"({' or '.join(SEVEN_RULES)}) and not flt05"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(work), "LANG": "C.UTF-8"}
    done = subprocess.run(
        [runuser, "-u", "nobody", "--", str(installed / "amqp-conformance"), "--amqp-url", url,
         "--consumer-timeout-ms", str(node.consumer_timeout_ms), "--baseline", node.name,
         "--toxiproxy-server", str(sandbox / "toxiproxy-server"), "-k", selection, "--run-dir", str(store)],
        cwd=work, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-5000:]
    manifest = json.loads((store / "manifest.json").read_text())
    assert store.stat().st_uid == (work / "runs").stat().st_uid != 0, "the run store belongs to nobody"
    assert manifest["broker"] == "RabbitMQ" and manifest["broker_origin"] == "--amqp-url"
    assert manifest["outcomes"]["fail"] == manifest["outcomes"]["error"] == 0, manifest["outcomes"]
    rules = {p.get("value") for p in ET.parse(store / manifest["junit"]).getroot().iter("property")
             if p.get("name") == "rule"}
    assert rules == set(SEVEN_RULES), f"rules run: {sorted(rules)}"
    assert any((store / manifest["allure_results"]).glob("*-result.json"))
    assert "amqp-conformance-0.1.0" in output, "the suite's plugins come from the installed distribution"


# Every command the README names that needs no checkout and no broker, as the wheel's venv
# runs it (bin/python, bin/amqp-conformance), from a directory outside the repository; a
# README command of the package's that is not here fails test_the_readme_names_only_these.
README_COMMANDS = {
    "amqp-conformance": [["amqp-conformance", "--help"]],
    "amqp_conformance.fixtures.commands.catalogue": [
        ["python", "-m", "amqp_conformance.fixtures.commands.catalogue"],
        ["python", "-m", "amqp_conformance.fixtures.commands.catalogue", "--coverage"],
        ["python", "-m", "amqp_conformance.fixtures.commands.catalogue", "--accepts"]],
    "amqp_conformance.fixtures.commands.spec_coverage": [
        ["python", "-m", "amqp_conformance.fixtures.commands.spec_coverage"]],
    "amqp_conformance.reports": [["python", "-m", "amqp_conformance.reports", "--help"],
                                 ["python", "-m", "amqp_conformance.reports", "rejudge", "--help"]],
    # what the catalogue's rule table says of a rule, for a model check judging a rule it did not select
    "declaration_of": [["python", "-c", "from amqp_conformance.fixtures.core.rules import declaration_of; "
                                        "print(declaration_of('ACK-04'))"]],
}
README_NAMES = re.compile(r"(?:python3? -m |amqpc/bin/)(amqp[_a-z.-]+)")


def test_the_readme_names_only_commands_the_packaging_test_runs():
    named = set(README_NAMES.findall((REPO / "README.md").read_text()))
    assert named and named <= set(README_COMMANDS), sorted(named - set(README_COMMANDS))


@pytest.mark.integration
@pytest.mark.timeout(INSTALL_TIMEOUT_S * 3)
def test_every_readme_command_runs_from_the_wheel_alone(installed, sandbox):
    outside = sandbox / "elsewhere"
    outside.mkdir(exist_ok=True)
    env = {"PATH": f"{installed}:/usr/bin:/bin", "HOME": str(outside), "LANG": "C.UTF-8"}
    for commands in README_COMMANDS.values():
        for command in commands:
            done = _run([str(installed / command[0]), *command[1:]], cwd=outside, env=env, timeout=RUN_TIMEOUT_S)
            assert done.stdout.strip(), command
    shown = _run([str(installed / "python"), *README_COMMANDS["declaration_of"][0][1:]], cwd=outside, env=env)
    assert shown.stdout.startswith("ACK-04 (MUST)")


@pytest.mark.integration
@pytest.mark.timeout(INSTALL_TIMEOUT_S * 3)
def test_the_installed_plugin_names_every_rule_module_as_a_checkout_does(installed, sandbox):
    outside = sandbox / "elsewhere"
    outside.mkdir(exist_ok=True)
    every_case = ["-m", "perf or long or not (perf or long)", "--amqp-url", "amqp://guest:guest@127.0.0.1:1/"]
    installed_names = rule_module_names(str(installed / "python"), "--pyargs", "amqp_conformance.conformance",
                                        *every_case, cwd=outside, env={"PATH": "/usr/bin:/bin", "HOME": str(outside)})
    checkout_names = rule_module_names(sys.executable, "conformance", *every_case, cwd=REPO)
    assert installed_names["names"] == checkout_names["names"] and installed_names["names"]
    assert installed_names["other_names"] == checkout_names["other_names"] == []


# PyPI's packages named like the checkout's folders (testtools' fixtures, a report
# builder): the wheel installs under amqp_conformance alone, so neither is overwritten
# and all three import side by side. ci/test reads that from the wheel's file list;
# ci/mutation (`full`) also installs both beside it (a minute of pip) and imports all three.
NEIGHBOURS = ("fixtures==4.3.2", "reports==0.4.1")


@pytest.mark.integration
def test_the_wheel_installs_under_amqp_conformance_alone(installed, sandbox):
    (wheel,) = (sandbox / "dist").glob("amqp_conformance-*.whl")
    tops = {name.split("/", 1)[0] for name in zipfile.ZipFile(wheel).namelist()}
    assert {top for top in tops if not top.endswith(".dist-info")} == {"amqp_conformance"}, sorted(tops)


@pytest.mark.integration
@pytest.mark.full
@pytest.mark.timeout(INSTALL_TIMEOUT_S * 3)
def test_the_wheel_coexists_with_pypis_fixtures_and_reports(installed):
    _run([str(installed / "pip"), "install", "-q", *NEIGHBOURS],
         env={**os.environ, "PIP_CACHE_DIR": str(CACHE / "pip")}, timeout=INSTALL_TIMEOUT_S)
    code = ("import fixtures, reports, amqp_conformance.fixtures.vocabulary as vocabulary, amqp_conformance.reports\n"
            "from fixtures import Fixture\n"
            "from reports import Report\n"
            "print(fixtures.__file__, reports.__file__, vocabulary.__file__, sep='\\n')")
    shown = _run([str(installed / "python"), "-c", code], cwd="/").stdout.split()
    assert shown[0].endswith("site-packages/fixtures/__init__.py"), shown
    assert shown[1].endswith("site-packages/reports/__init__.py"), shown
    assert shown[2].endswith("site-packages/amqp_conformance/fixtures/vocabulary/__init__.py"), shown
