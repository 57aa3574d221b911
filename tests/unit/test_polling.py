"""The shared poller (fixtures/core/polling.py): bounded, at least one reading, the last
reading handed back, and an exception from a reading ends the poll."""

from __future__ import annotations

import asyncio
import itertools
import time

import pytest

from amqp_conformance.fixtures.core.polling import poll_until, poll_until_async


def test_a_poll_stops_at_the_first_reading_that_holds():
    counter = itertools.count(1)
    polled = poll_until(lambda: next(counter), lambda n: n >= 3, within=5, every=0.001)
    assert (polled.value, polled.held) == (3, True) and polled.waited < 5


def test_a_poll_is_bounded_and_hands_back_the_last_reading():
    counter = itertools.count(1)
    started = time.monotonic()
    polled = poll_until(lambda: next(counter), lambda n: False, within=0.2, every=0.05)
    assert not polled.held and polled.value >= 2 and 0.2 <= polled.waited < 1.5
    assert time.monotonic() - started < 1.5


def test_a_zero_bound_still_reads_once():
    assert poll_until(lambda: 7, lambda n: False, within=0, every=1).value == 7


def test_a_reading_that_raises_ends_the_poll():
    def read():
        raise RuntimeError("the process exited")
    with pytest.raises(RuntimeError, match="exited"):
        poll_until(read, within=5, every=0.01)


def test_the_async_poll_reads_on_the_loop():
    counter = itertools.count(1)

    async def read():
        await asyncio.sleep(0)
        return next(counter)

    polled = asyncio.run(poll_until_async(read, lambda n: n == 4, within=5, every=0.001))
    assert (polled.value, polled.held) == (4, True)
    late = asyncio.run(poll_until_async(read, lambda n: False, within=0.1, every=0.02))
    assert not late.held and late.waited >= 0.1
