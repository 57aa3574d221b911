"""Loaded into a suite run with `-p tests.integration.kill_broker_plugin`: after the first
case's call, kill -9 the session's managed broker, as a broker that dies of a bad input
would exit (tests/integration/test_broker_watch.py)."""

from __future__ import annotations

import pytest

from amqp_conformance.fixtures.vocabulary.current_run import STATE


class _Killer:
    def __init__(self, config: pytest.Config) -> None:
        self.config, self.done = config, False

    def pytest_runtest_logreport(self, report) -> None:
        if report.when == "call" and not self.done:
            self.done = True
            self.config.stash[STATE].managed.kill()


def pytest_configure(config: pytest.Config) -> None:
    if getattr(config, "workerinput", None) is None:
        config.pluginmanager.register(_Killer(config), "kill-the-broker-after-one-case")
