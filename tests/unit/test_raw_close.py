"""A broker's close read field by field by every reader of the suite (the raw frames, the
frame dialogue, the handshake by hand): a reply text that is not UTF-8 is still the
broker's close (RabbitMQ 3.10.8 under `-m fuzz --fuzz-examples 500` echoed a fuzzed frame's
octet 0xA0 in its text; MDL-03[F3-frame-type] was an error, UnmarshalingException)."""

from __future__ import annotations

import struct

import pytest
from pamqp import commands as spec
from pamqp import exceptions as pamqp_exceptions
from pamqp import frame

from amqp_conformance.fixtures.wire.dialogue import WireConnection
from amqp_conformance.fixtures.wire.frames import FRAME_HEADER, unmarshal
from amqp_conformance.fixtures.wire.handshake import HandshakeConnection
from amqp_conformance.fixtures.wire.raw_frames import connection_close_of
from amqp_conformance.fixtures.wire.target import BrokerTarget
from tests.stream_fakes import CollectingWriter, fed_reader

NOT_UTF8 = b"FRAME_ERROR - type \xa0"


def payload_of(method) -> bytes:
    return frame.marshal(method, 0)[FRAME_HEADER.size:-1]


def close_frame(class_method: tuple[int, int], channel: int, text: bytes = NOT_UTF8) -> bytes:
    payload = struct.pack(">HHHB", *class_method, 501, len(text)) + text + struct.pack(">HH", 60, 40)
    return FRAME_HEADER.pack(1, channel, len(payload)) + payload + b"\xce"


TARGET = BrokerTarget("127.0.0.1", 5672, password="secret")


def test_a_close_reads_as_pamqp_reads_it():
    close = connection_close_of(payload_of(spec.Connection.Close(501, "FRAME_ERROR - bad frame", 10, 40)))
    assert (close.scope, close.code, close.text, close.class_id, close.method_id) == (
        "connection", 501, "FRAME_ERROR - bad frame", 10, 40)


def test_a_text_that_is_not_utf8_is_kept_with_replacement_characters():
    close = connection_close_of(close_frame((10, 50), 0)[FRAME_HEADER.size:-1])
    assert (close.code, close.text, close.class_id) == (501, "FRAME_ERROR - type \ufffd", 60)


def test_a_close_too_short_for_its_fields_says_so():
    close = connection_close_of(struct.pack(">HHH", 10, 50, 501))
    assert close.code == 0 and "too short" in close.text


@pytest.mark.parametrize("kind, class_method, channel", [(spec.Connection.Close, (10, 50), 0),
                                                          (spec.Channel.Close, (20, 40), 3)])
def test_both_closes_read_where_pamqp_refuses_them(kind, class_method, channel):
    with pytest.raises(pamqp_exceptions.UnmarshalingException):
        frame.unmarshal(close_frame(class_method, channel))
    read_channel, close = unmarshal(close_frame(class_method, channel))
    assert read_channel == channel and isinstance(close, kind)
    assert (close.reply_code, close.reply_text, close.class_id, close.method_id) == (501, "FRAME_ERROR - type \ufffd",
                                                                                     60, 40)


def test_any_other_frame_pamqp_refuses_still_raises():
    text = b"\xa0"
    payload = struct.pack(">HHB", 50, 11, len(text)) + text + b"\x00" * 8  # a queue.declare-ok naming 0xA0
    with pytest.raises(pamqp_exceptions.UnmarshalingException):
        unmarshal(FRAME_HEADER.pack(1, 1, len(payload)) + payload + b"\xce")


async def test_the_frame_dialogue_reads_the_close_as_the_brokers_not_as_a_lost_connection():
    connection = WireConnection(TARGET, fed_reader(close_frame((10, 50), 0)), CollectingWriter())
    await connection._read_loop()
    assert connection.closed_by_broker is not None and connection.closed_by_broker.code == 501
    assert not connection.lost


async def test_the_handshake_by_hand_reads_the_close_as_a_close():
    connection = HandshakeConnection(TARGET, fed_reader(close_frame((10, 50), 0)), CollectingWriter())
    heard = await connection.next(1.0)
    assert isinstance(heard.what, spec.Connection.Close)
    assert connection.closed_by_broker.text == "FRAME_ERROR - type \ufffd"
