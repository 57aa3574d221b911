"""Test-only (loaded with -p): the first attempt of one case fails, its event loop blocked
for BLOCK_S while its body runs (AMQPC_INJECT=lag:CASE) or not (AMQPC_INJECT=flaky:CASE);
every later attempt runs as written. A file (AMQPC_INJECT_MARK) remembers the first
attempt across processes: an xdist worker runs it, the controller reruns it."""

import os
import time
from pathlib import Path

import pytest

from amqp_conformance.fixtures.plugin.baselines import case_key
from amqp_conformance.fixtures.checking import verifiers

MODE, CASE = os.environ["AMQPC_INJECT"].split(":", 1)
MARK = Path(os.environ["AMQPC_INJECT_MARK"])
BLOCK_S = 1.5  # over half the smallest bound (the 1 s negative window): lag that explains a verdict


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function):
    first = case_key(pyfuncitem) == CASE and not MARK.exists()
    if first:
        MARK.touch()
        if MODE == "lag":  # the loop blocked once the body runs, as a starved harness would be
            runner = next(v for k, v in pyfuncitem.funcargs.items() if k.endswith("_scoped_runner"))
            runner.get_loop().call_later(0.01, time.sleep, BLOCK_S)
    result = yield
    if first:
        raise verifiers.violation("the case's first attempt holds (injected)", "a pass",
                               f"a failure injected by {__name__} ({MODE})")
    return result
