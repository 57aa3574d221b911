"""The suite runs with xdist switched off (`-p no:xdist`): its xdist hooks are optional,
so pytest must not stop on them (it once ended in INTERNALERROR: unknown hook
'pytest_configure_node')."""

from __future__ import annotations

import pytest

from tests.suite_runs import node_args, run_suite

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]


def test_a_run_without_xdist_has_no_internal_error(tmp_path, plain_rabbitmq):
    # The worker's plain node at its URL: what is judged is the plugin's hooks, not the node.
    suite = run_suite(tmp_path, *node_args(plain_rabbitmq), "-p", "no:xdist",
                      "-k", "ACK_04 or ack_04", "-m", "not fault", "--no-baseline")
    assert "INTERNALERROR" not in suite.output, suite.output[-3000:]
    assert suite.returncode == 0, suite.output[-3000:]
    assert suite.cases and {c.properties["rule"] for c in suite.cases} == {"ACK-04"}
