"""The interrupt's own exception, seen by a plugin's hook wrapper, is no warning of the run;
wherever the signal lands, the run says it was interrupted in its one line."""

import sys
import warnings

import pytest
from pluggy import PluggyTeardownRaisedWarning


def _pluggy_says(exception: str) -> str:
    return ("A plugin raised an exception during an old-style hookwrapper teardown.\n"
            f"Plugin: allure_listener, Hook: pytest_fixture_post_finalizer\n{exception}\n"
            "For more information see https://pluggy.readthedocs.io/")


def _reported(exception: str) -> list:
    with warnings.catch_warnings(record=True) as seen:  # under the run's filters (pytest's, ours)
        warnings.warn(PluggyTeardownRaisedWarning(_pluggy_says(exception)))
    return seen


def test_the_interrupt_inside_a_hook_wrapper_is_not_reported():
    assert not _reported("RunInterrupted: run interrupted by SIGINT: stopping the brokers")


def test_any_other_exception_inside_a_hook_wrapper_still_is():
    assert _reported("ValueError: a real failure")


def _unread_task_ends_reported(handler) -> list[str]:
    """What the loop reports of a task that fails after nobody awaits it any more."""
    import asyncio
    import gc
    import logging

    said: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record):
            said.append(record.getMessage())

    keep = Keep()
    logging.getLogger("asyncio").addHandler(keep)
    loop = asyncio.new_event_loop()
    try:
        if handler is not None:
            loop.set_exception_handler(handler)

        async def wakes_to_a_lost_connection():
            raise ConnectionError("connection lost while waiting for the reply to Channel.Open")

        task = loop.create_task(wakes_to_a_lost_connection())
        loop.run_until_complete(asyncio.sleep(0))
        del task
        gc.collect()
        loop.call_exception_handler({"message": "something else the loop saw"})
    finally:
        loop.close()
        logging.getLogger("asyncio").removeHandler(keep)
    return said


def test_after_an_interrupt_an_abandoned_case_ends_without_a_traceback():
    from amqp_conformance.fixtures.plugin.interruption import quiet_about_abandoned_tasks

    assert any("never retrieved" in line for line in _unread_task_ends_reported(None))  # the symptom
    assert _unread_task_ends_reported(quiet_about_abandoned_tasks) == ["something else the loop saw"]


def test_an_abandoned_close_callback_is_closed_before_the_interpreter_exits():
    """aio-pika's close callback, suspended when the interrupt closed its loop, would be
    finalized at the interpreter's exit, where Python prints its RuntimeError (the SIGINT
    run's traceback, 1 in about 20 ci/test runs)."""
    import asyncio
    import gc
    import sys

    from aio_pika.tools import OneShotCallback

    from amqp_conformance.fixtures.plugin.interruption import (close_abandoned_close_callbacks,
                                                               quiet_about_abandoned_tasks)

    printed = []
    previous, sys.unraisablehook = sys.unraisablehook, printed.append
    loop = asyncio.new_event_loop()
    try:
        asyncio.set_event_loop(loop)
        loop.set_exception_handler(quiet_about_abandoned_tasks)  # as the interrupt sets it
        never = loop.create_future()

        async def announce_the_close(reply):
            await reply

        callback = OneShotCallback(announce_the_close)
        loop.run_until_complete(asyncio.sleep(0, result=callback(never)))
        loop.run_until_complete(asyncio.sleep(0))  # the callback's coroutine is now suspended
        loop.close()
        assert close_abandoned_close_callbacks() == 1
        assert close_abandoned_close_callbacks() == 0
        del callback, never
        gc.collect()
    finally:
        asyncio.set_event_loop(None)
        sys.unraisablehook = previous
    assert not printed, [str(p.exc_value) for p in printed]


# The controller's handler installed, then a SIGINT that lands inside a weakref callback.
SWALLOWED_IN_A_CALLBACK = """
import signal, time, types, weakref
import pytest
from amqp_conformance.fixtures.plugin import interruption

interruption.pytest_configure(types.SimpleNamespace(addinivalue_line=lambda *a: None, stash=pytest.Stash()))

class Held:
    pass

held = Held()
reference = weakref.ref(held, lambda _: signal.raise_signal(signal.SIGINT))
try:
    del held  # the callback runs here, and the handler inside it
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # the run's own code, going on
        time.sleep(0.01)
    print("ran on")
except interruption.RunInterrupted:
    print("interrupted")
"""


def test_an_interrupt_a_weakref_callback_swallows_is_delivered_again():
    """Python only reports what a weakref callback or a finalizer raises: a signal landing
    there was lost, and a SIGINT run of ci/test ran its 85 cases to the end."""
    import subprocess
    import sys

    from tests.suite_runs import REPO

    done = subprocess.run([sys.executable, "-c", SWALLOWED_IN_A_CALLBACK], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.split() == ["interrupted"], done.stdout + done.stderr[-2000:]
    assert "Exception ignored" not in done.stderr, done.stderr[-2000:]


def _interrupt_raised_where_no_line_is_known():
    """A KeyboardInterrupt whose traceback passes a frame Python has no line number for,
    as a signal handled at such an instruction leaves it (CPython 3.11)."""
    import sys
    import types

    def interrupt():
        raise KeyboardInterrupt("run interrupted by SIGTERM")

    lineless = types.FunctionType(interrupt.__code__.replace(co_linetable=b""), globals())
    try:
        lineless()
    except KeyboardInterrupt:
        return pytest.ExceptionInfo.from_exc_info(sys.exc_info())
    raise AssertionError("not interrupted")


def test_an_interrupt_through_a_frame_without_a_line_is_reported_in_its_one_line():
    from amqp_conformance.fixtures.plugin import interruption

    seen = _interrupt_raised_where_no_line_is_known()
    with pytest.raises(TypeError):  # what pytest's terminal reporter met: a traceback, exit 1
        seen.getrepr(funcargs=True)
    mended = _interrupt_raised_where_no_line_is_known()
    interruption.pytest_keyboard_interrupt(mended)
    assert mended.getrepr(funcargs=True).reprcrash.message.endswith("run interrupted by SIGTERM")


def _runner_with_a_case_that_outlives_one_cancel():
    """An asyncio.Runner (as pytest-asyncio's) left holding an interrupted case's task
    that swallows the first cancel and then waits for an hour."""
    import asyncio

    async def stubborn():
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            pass  # as wait_for on 3.11 when what it awaited ended at the cancel's moment
        await asyncio.sleep(3600)

    async def start_and_leave():
        asyncio.ensure_future(stubborn())
        await asyncio.sleep(0)

    runner = asyncio.Runner()
    runner.run(start_and_leave())
    return runner


def _closes_within(runner, seconds: float) -> bool:
    import threading

    closing = threading.Thread(target=runner.close, daemon=True)
    closing.start()
    closing.join(seconds)
    return not closing.is_alive()


def test_the_runner_closes_after_an_interrupt_though_a_task_outlives_one_cancel():
    import asyncio

    from amqp_conformance.fixtures.plugin import interruption

    hung = _runner_with_a_case_that_outlives_one_cancel()
    assert not _closes_within(hung, 1.0)  # one cancel only: it would wait for the hour
    loop = hung.get_loop()
    loop.call_soon_threadsafe(lambda: [task.cancel() for task in asyncio.all_tasks(loop)])  # let that close end
    mended = _runner_with_a_case_that_outlives_one_cancel()
    interruption.keep_cancelling(mended.get_loop())
    assert _closes_within(mended, 10.0)


def _loop_interrupted_as_its_case_ends():
    """A loop whose run the interrupt ended in the very pass in which the case's task
    ended: asyncio's stop for that run is left queued behind the interrupt."""
    import asyncio

    from amqp_conformance.fixtures.plugin import interruption

    loop = asyncio.new_event_loop()

    async def case():
        return "done"

    task = loop.create_task(case())
    loop.call_soon(interruption._raise, interruption.RunInterrupted("run interrupted by SIGTERM"))
    with pytest.raises(interruption.RunInterrupted):
        loop.run_until_complete(task)
    assert task.done()
    return loop


def test_the_teardown_runs_whole_after_an_interrupt_that_came_as_the_case_ended():
    import asyncio

    from amqp_conformance.fixtures.plugin import interruption

    left = _loop_interrupted_as_its_case_ends()
    with pytest.raises(RuntimeError, match="stopped before Future completed"):  # the teardown's next run
        left.run_until_complete(asyncio.sleep(0.01))
    left.close()
    mended = _loop_interrupted_as_its_case_ends()
    interruption.run_what_the_interrupt_left(mended)
    assert mended.run_until_complete(asyncio.sleep(0.01, "torn down")) == "torn down"
    mended.close()


def test_an_interrupt_queued_behind_a_loops_last_pass_is_raised_once_and_swallowed_at_the_end():
    import asyncio

    from amqp_conformance.fixtures.plugin import interruption

    loop = asyncio.new_event_loop()
    interrupted = interruption.RunInterrupted("run interrupted by SIGTERM")
    loop.call_soon(interruption._raise, interrupted)  # the loop's run ended before it
    loop.call_soon(interruption._raise, interrupted)  # delivered again
    interruption.run_what_the_interrupt_left(loop)  # raises neither out of the session's end
    assert loop.run_until_complete(asyncio.sleep(0, "ran")) == "ran"
    loop.close()


def test_no_case_starts_after_the_interrupt_even_when_something_caught_it():
    from types import SimpleNamespace

    from amqp_conformance.fixtures.plugin import interruption

    stash = pytest.Stash()
    item = SimpleNamespace(config=SimpleNamespace(stash=stash))
    assert interruption.pytest_runtest_protocol(item) is None  # not interrupted: the case runs
    stash[interruption.INTERRUPTED_BY] = "SIGTERM"
    with pytest.raises(interruption.RunInterrupted, match="run interrupted by SIGTERM"):
        interruption.pytest_runtest_protocol(item)


# A coroutine created and never started, left in a reference cycle (as the frames an
# interrupt unwinds leave aiormq's reject_all), then collected outside any warning filter of
# the session (as pytest's cleanup collects it).
NEVER_STARTED_IN_A_CYCLE = """
import gc, sys, warnings
from amqp_conformance.fixtures.plugin import interruption

async def reject_all():
    pass

if sys.argv[1] == "quieted":
    interruption.no_warning_for_coroutines_never_started()
with warnings.catch_warnings():
    warnings.simplefilter("default")
    cycle = {"coroutine": reject_all()}
    cycle["self"] = cycle
    del cycle
    gc.collect()
"""


@pytest.mark.parametrize("after_the_interrupt", ["plain", "quieted"])
def test_a_coroutine_the_interrupt_left_unstarted_warns_nothing_after_the_run(after_the_interrupt):
    import subprocess

    printed = subprocess.run([sys.executable, "-c", NEVER_STARTED_IN_A_CYCLE, after_the_interrupt],
                             capture_output=True, text=True, timeout=60).stderr
    if after_the_interrupt == "plain":
        assert "was never awaited" in printed  # the symptom
    else:
        assert printed == ""
