"""The model checks and the fuzzer search a budget counted in examples from a fixed seed
(issue 46, item 5): the same examples on a quiet host, under a CPU hog, and under a clock
that says every step took a second; only a run past its time net stops early, and then as
an error, never as a pass on fewer examples. No broker: the fuzzer's examples are only
drawn, and the model runner drives a toy machine that writes down its steps."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, rule

from amqp_conformance.fixtures.models.fuzzing import FuzzNetReached, FuzzOptions, search
from amqp_conformance.fixtures.models.profiles import DEFAULT_SEED, PROFILES, ModelOptions, ModelProfile
from amqp_conformance.fixtures.models.runner import SearchNetReached, run_machine
from amqp_conformance.fixtures.checking import verifiers


class FakeBroker:
    target = None

    def name(self, kind="q"):
        return f"fake-{kind}"


class StepsWritten(RuleBasedStateMachine):
    """Changes nothing; every step it takes goes into the class's list."""

    taken: list[str] = []

    def __init__(self, journal):
        super().__init__()
        journal.begin_example()
        self.taken.append("example")

    @rule(tag=st.integers(0, 9))
    def ack(self, tag):
        self.taken.append(f"ack {tag}")

    @rule(count=st.integers(1, 3), requeue=st.booleans())
    def nack(self, count, requeue):
        self.taken.append(f"nack {count} {requeue}")


def drawn_fuzz_examples(examples: int = 150, net: float = 900.0) -> list:
    seen: list = []
    search(FuzzOptions(examples=examples, seed=DEFAULT_SEED, time_net=net), seen.append)
    return seen


def model_steps(options: ModelOptions) -> tuple[list[str], int]:
    verifiers.begin_test()
    StepsWritten.taken = []
    journal = run_machine(FakeBroker(), StepsWritten, options=options)
    return list(StepsWritten.taken), journal.examples


@pytest.fixture
def slow_clock(monkeypatch):
    """A clock on which every reading is a second after the last: a host so loaded that each
    step seems to take a second (the old 12-second box would have stopped after two chunks)."""
    now = [time.monotonic()]

    def later() -> float:
        now[0] += 1.0
        return now[0]

    monkeypatch.setattr(time, "monotonic", later)


CI = ModelOptions(PROFILES["ci"], seed=DEFAULT_SEED)


def test_the_fuzzer_draws_the_same_examples_under_a_cpu_hog():
    quiet = drawn_fuzz_examples()
    assert len(quiet) == 150 and len({e.case for e in quiet}) >= 8, quiet  # the budget, across the cases
    with _hogged():
        assert drawn_fuzz_examples() == quiet


def test_the_fuzzer_draws_the_same_examples_on_a_slow_clock(slow_clock):
    with _real_clock():
        quiet = drawn_fuzz_examples()
    assert drawn_fuzz_examples() == quiet


def test_the_fuzzer_past_its_net_is_an_error_not_a_shorter_pass(slow_clock):
    with pytest.raises(FuzzNetReached, match="not sent"):
        drawn_fuzz_examples(examples=50, net=10.0)


def test_the_model_search_runs_its_examples_under_a_cpu_hog():
    steps, examples = model_steps(CI)
    assert examples >= CI.profile.max_examples and steps.count("example") == examples
    with _hogged():
        assert model_steps(CI) == (steps, examples)


def test_the_model_search_runs_its_examples_on_a_slow_clock(slow_clock):
    with _real_clock():
        quiet = model_steps(CI)
    assert model_steps(CI) == quiet
    assert verifiers.current().observations["model seeds"] == f"{DEFAULT_SEED}..{DEFAULT_SEED + 5}"


def test_the_model_search_past_its_net_is_an_error_not_a_shorter_pass(slow_clock):
    short_net = ModelOptions(ModelProfile("net", max_examples=60, steps=5, time_net=1.5, shrink_bound=1.0,
                                          chunk=10), seed=DEFAULT_SEED)
    with pytest.raises(SearchNetReached, match=r"after \d+ of its 60 examples") as stopped:
        model_steps(short_net)
    # How many chunks fit depends on how often other threads (the bridge's loop) read the
    # slow clock, so only this is fixed: whole chunks, and fewer than the budget.
    done = int(re.search(r"after (\d+) of its", str(stopped.value)).group(1))
    assert done % 10 == 0 and 0 < done < 60, done


class _hogged:
    def __enter__(self):
        self.hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
        time.sleep(0.2)  # let them take the cores before the search starts (not a verdict's wait)

    def __exit__(self, *exc):
        for hog in self.hogs:
            hog.kill()
            hog.wait(timeout=10)


class _real_clock:
    """The slow clock set aside for a reference run."""

    def __enter__(self):
        self.slow = time.monotonic
        time.monotonic = _MONOTONIC

    def __exit__(self, *exc):
        time.monotonic = self.slow


_MONOTONIC = time.monotonic
