"""The fuzz cases added for issue 46 (F1, F8, F11, F14, F15, F16, F17, F18) draw what spec-rules.md
section 5 says, without a broker: each drawn example is checked against its case's
definition, and a stored example replays with every field it was drawn with."""

from __future__ import annotations

from collections import Counter

import pytest

from amqp_conformance.fixtures.models import fuzzing
from amqp_conformance.fixtures.models.fuzz_cases import (AMQP_0_9_1, ANY, ANSWERS, CASES, CHANNEL_OPEN, CUT_QUEUE,
                                                         ENDS, FRAME_MIN_SIZE, HEADER_THEN_END, OPEN, SERVES,
                                                         START_OK, TUNE_OK, Example, handshake_expectation)
from amqp_conformance.fixtures.wire import raw_frames as frames
from amqp_conformance.fixtures.wire.frames import FRAME_HEADER


@pytest.fixture(scope="module")
def drawn() -> list[Example]:
    """A dozen examples of each fuzz case (each case's own search, as MDL-03 runs them)."""
    seen: list[Example] = []
    options = fuzzing.FuzzOptions(examples=12 * len(CASES), seed=46)
    for case in CASES:
        fuzzing.search(options, seen.append, case=case)
    return seen


def _frames(data: bytes) -> list[bytes]:
    return _frames_prefix(data)


def test_every_new_case_is_drawn(drawn):
    counts = Counter(example.case for example in drawn)
    assert all(counts[case] for case in ("F1", "F8", "F11", "F14", "F15", "F16", "F17", "F18")), counts


def test_f1_expects_what_pdf_4_2_2_says_of_each_header(drawn):
    for example in (e for e in drawn if e.case == "F1"):
        data = b"".join(example.chunks)
        assert example.fresh
        expected = (SERVES if data[:8] == AMQP_0_9_1 else ANY if len(data) < 8
                    else ANSWERS if data.startswith(b"AMQP") else HEADER_THEN_END)
        assert example.expect == expected, example


def test_f8_is_a_whole_mandatory_publish_with_channel_two_between_its_frames(drawn):
    for example in (e for e in drawn if e.case == "F8"):
        sent = [f for chunk in example.chunks for f in _frames(chunk)]
        own = [f for f in sent if FRAME_HEADER.unpack_from(f)[1] == 1][:-1]  # the last: channel 1's barrier
        others = [f for f in sent[1:] if FRAME_HEADER.unpack_from(f)[1] == 2]
        body = b"".join(frames.payload_of(f) for f in own if f[0] == frames.BODY)
        assert body == example.returned and example.expect == SERVES
        assert sent.index(own[0]) < sent.index(others[0]) < sent.index(own[-1]) if others else True
        assert example.answers == 1 + len(others) + 4


def test_f17_cuts_before_the_content_is_whole(drawn):
    for example in (e for e in drawn if e.case == "F17"):
        (cut,) = example.chunks
        assert example.cut and cut and CUT_QUEUE.encode()[:max(0, len(cut) - 16)] in cut
        whole = _frames_prefix(cut)  # the frames the cut leaves whole: never the content's last octet
        announced = int.from_bytes(frames.payload_of(whole[1])[4:12], "big") if len(whole) > 1 else 1
        assert sum(len(frames.payload_of(f)) for f in whole[2:]) < announced, example


def _frames_prefix(data: bytes) -> list[bytes]:
    whole = []
    while len(data) >= FRAME_HEADER.size:
        size = FRAME_HEADER.unpack_from(data)[2]
        if len(data) < FRAME_HEADER.size + size + 1:
            break
        whole.append(data[:FRAME_HEADER.size + size + 1])
        data = data[FRAME_HEADER.size + size + 1:]
    return whole


def test_f11_broken_queue_arguments_end_the_connection_and_the_rest_are_judged_by_the_invariants(drawn):
    tables = [e for e in drawn if e.case == "F11"]
    assert {e.expect for e in tables} == {ENDS, ANY}
    for example in tables:
        declare = example.chunks[0][FRAME_HEADER.size:FRAME_HEADER.size + 4] == b"\x00\x32\x00\x0a"
        assert example.expect == ANY or declare


def test_f18_within_channel_max_serves(drawn):
    for example in (e for e in drawn if e.case == "F18"):
        assert len(set(example.channel_offsets)) == len(example.channel_offsets)
        assert example.expect == (SERVES if max(example.channel_offsets) <= 0 else ANY)


@pytest.mark.parametrize("steps, expect", [
    ((START_OK, TUNE_OK, OPEN), SERVES),
    ((START_OK, TUNE_OK, OPEN, CHANNEL_OPEN), SERVES),
    ((START_OK, TUNE_OK, OPEN, CHANNEL_OPEN, CHANNEL_OPEN), ENDS),  # channel 1 opened twice
    ((START_OK, TUNE_OK, OPEN, OPEN), ENDS),  # CN-20 open-twice
    ((START_OK, START_OK, TUNE_OK, OPEN), ENDS),  # CN-20 start-ok-twice
    ((START_OK, TUNE_OK, TUNE_OK, OPEN), ENDS),  # CN-20 tune-ok-twice
    ((START_OK, TUNE_OK, CHANNEL_OPEN, OPEN), ENDS),  # CN-20 channel-open-before-open
    ((TUNE_OK,), ENDS), ((OPEN, START_OK), ENDS),
    ((START_OK,), ANY), ((START_OK, TUNE_OK), ANY),  # unfinished: the broker may wait
])
def test_f14_expects_what_the_connection_grammar_says(steps, expect):
    assert handshake_expectation(steps) == expect


def test_f14_draws_steps_by_name_and_f15_sizes_around_the_frame_minimum(drawn):
    f14 = [e for e in drawn if e.case == "F14"]
    assert {e.expect for e in f14} >= {ENDS, SERVES}
    assert all(not e.chunks and e.expect == handshake_expectation(e.handshake) for e in f14)
    for example in (e for e in drawn if e.case == "F15"):
        assert example.handshake == (START_OK, TUNE_OK, OPEN) and not example.chunks  # no credentials in it
        assert example.expect == (SERVES if example.start_ok_size <= FRAME_MIN_SIZE else ANY)


def test_a_stored_example_replays_with_every_field(tmp_path, drawn):
    kept = [next(e for e in drawn if e.case == case) for case in ("F1", "F8", "F14", "F15", "F17", "F18", "F2")]
    for example in kept:
        fuzzing._store(tmp_path, example)
    assert fuzzing.stored_examples(tmp_path) == kept


def test_a_failure_hypothesis_cannot_replay_is_the_violation_it_saw():
    # garagemq, -m fuzz --fuzz-examples 500: an F11 example broke an invariant once and not
    # on Hypothesis's replay; the case was reported "error: FlakyFailure", not the violation.
    from hypothesis.errors import FlakyFailure

    from amqp_conformance.fixtures.models.runner import seen_once
    from amqp_conformance.fixtures.vocabulary.framing import InvariantBroken

    broken = InvariantBroken("a fresh client is served after the bad input", "served", "no reply within 3.0 s")
    flaky = FlakyFailure("Hypothesis one(example=...) produces unreliable results", [broken])
    seen = seen_once(flaky, "the example below is the last that showed it.")
    assert seen is broken and "could not replay" in " ".join(seen.__notes__)
    other = ValueError("not a violation")
    assert seen_once(other, "") is other
    assert isinstance(seen_once(FlakyFailure("no violation inside", [other]), ""), FlakyFailure)


def test_a_broker_on_its_way_out_is_given_a_bounded_while_to_exit():
    # Broker-J refused the fuzzer's clean-up connection before its JVM had exited, and the
    # case was an error (ConnectFailed) rather than the example that killed the broker.
    import time

    from amqp_conformance.fixtures.models.fuzzing import _exited

    class Exiting:
        def __init__(self, after: float):
            self.ends = time.monotonic() + after

        def poll(self):
            return 1 if time.monotonic() >= self.ends else None

    assert not _exited(None, within=1.0)
    assert not _exited(Exiting(after=0.3))  # no wait asked: still running
    assert _exited(Exiting(after=0.3), within=5.0)
    assert not _exited(Exiting(after=60), within=0.3)
