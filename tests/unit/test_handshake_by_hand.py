"""The handshake by hand (amqp_conformance.fixtures.wire.handshake) and how the connection
rules judge its end (amqp_conformance.fixtures.vocabulary.handshake), without a broker: what
a broker sends is fed to the connection's reader as TCP would cut it."""

import asyncio

import pytest
from pamqp import commands as spec
from pamqp import frame as pamqp_frame
from pamqp.heartbeat import Heartbeat

from amqp_conformance.fixtures.checking.verifiers import RuleViolation, begin_test
from amqp_conformance.fixtures.vocabulary.handshake import HandshakeEnding, expect_refused_before_open
from amqp_conformance.fixtures.wire.dialogue import Reply
from amqp_conformance.fixtures.wire.handshake import FRAME_MIN_SIZE, PROTOCOL_HEADER, HandshakeConnection
from amqp_conformance.fixtures.wire.target import BrokerTarget
from tests.stream_fakes import CollectingWriter, fed_reader


def by_hand(stream: bytes, chunk: int) -> HandshakeConnection:
    return HandshakeConnection(BrokerTarget("127.0.0.1", 5672, password="secret"), fed_reader(stream, chunk),
                               CollectingWriter())


@pytest.mark.parametrize("chunk", [1, 3, 64])
async def test_a_header_then_frames_then_the_end_are_read_in_order(chunk):
    stream = (PROTOCOL_HEADER + pamqp_frame.marshal(spec.Connection.Tune(channel_max=7, frame_max=4096, heartbeat=1), 0)
              + pamqp_frame.marshal(Heartbeat(), 0))
    connection = by_hand(stream, chunk)
    heard = [await connection.next(1.0) for _ in range(4)]
    assert heard[0].what == PROTOCOL_HEADER
    assert isinstance(heard[1].what, spec.Connection.Tune) and connection.tune.channel_max == 7
    assert isinstance(heard[2].what, Heartbeat)
    assert heard[3].ended and connection.ended


async def test_a_padded_start_ok_is_exactly_the_size_asked_and_hides_the_password():
    connection = by_hand(b"", 1)
    assert connection.start_ok(frame_size=FRAME_MIN_SIZE) == FRAME_MIN_SIZE
    await asyncio.sleep(0)  # what is sent leaves at the loop's next turn
    assert len(connection._writer.data) == FRAME_MIN_SIZE
    assert "secret" not in connection.trace_text() and b"secret" not in b"".join(d for _, _, d in connection.octets)


def test_a_refusal_before_open_ok_is_judged_by_how_it_ended():
    begin_test()
    silent = HandshakeEnding(None, None, True, 3.0, [])
    expect_refused_before_open(silent, "refused")  # a silent close: passes
    close = Reply("connection", 530, "NOT_ALLOWED")
    record = begin_test()
    expect_refused_before_open(HandshakeEnding(None, close, True, 0.0, []), "refused")
    assert record.non_strict  # a close first: non-strict
    record = begin_test()
    expect_refused_before_open(HandshakeEnding(None, Reply("connection", 402, "INVALID_PATH"), True, 0.0, []), "refused",
                               strict_codes=(402,))
    assert not record.non_strict
    with pytest.raises(RuleViolation):
        expect_refused_before_open(HandshakeEnding(spec.Connection.OpenOk(), None, False, 0.0, []), "refused")
    with pytest.raises(RuleViolation):
        expect_refused_before_open(HandshakeEnding(None, None, False, 8.0, []), "refused")
