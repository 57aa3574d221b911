"""Every hook the suite's plugins mark is one pytest registers: pytest looks only at names
that start with pytest_, so a hookimpl under a name of its own is silently never called
(the one that leaves Hypothesis's summary out of a run that never used it was)."""

from __future__ import annotations

import importlib

from _pytest.config import PytestPluginManager

from amqp_conformance.fixtures.plugin import SUITE_PLUGINS


def test_every_marked_hook_of_the_suite_s_plugins_is_registered():
    manager = PytestPluginManager()
    marked = []
    for name in SUITE_PLUGINS:
        module = importlib.import_module(name)
        for attribute, value in vars(module).items():
            if callable(value) and hasattr(value, "pytest_impl"):  # pytest.hookimpl's marker
                marked.append(f"{name}.{attribute}")
                assert manager.parse_hookimpl_opts(module, attribute) is not None, f"{name}.{attribute}"
    assert "amqp_conformance.fixtures.plugin.session.pytest_sessionfinish_without_unused_hypothesis" in marked
