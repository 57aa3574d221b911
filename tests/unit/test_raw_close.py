"""The raw connection's reading of the broker's connection.close: field by field, so a
reply text that is not UTF-8 is still the broker's close (RabbitMQ 3.10.8 under
`-m fuzz --fuzz-examples 500`: MDL-03[F3-frame-type] was an error, UnmarshalingException)."""

from __future__ import annotations

import struct

from pamqp import commands as spec
from pamqp import frame

from amqp_conformance.fixtures.wire.frames import FRAME_HEADER
from amqp_conformance.fixtures.wire.raw_frames import connection_close_of


def payload_of(method) -> bytes:
    return frame.marshal(method, 0)[FRAME_HEADER.size:-1]


def test_a_close_reads_as_pamqp_reads_it():
    close = connection_close_of(payload_of(spec.Connection.Close(501, "FRAME_ERROR - bad frame", 10, 40)))
    assert (close.scope, close.code, close.text, close.class_id, close.method_id) == (
        "connection", 501, "FRAME_ERROR - bad frame", 10, 40)


def test_a_text_that_is_not_utf8_is_kept_with_replacement_characters():
    text = b"FRAME_ERROR - type \xa0"
    raw = struct.pack(">HHHB", 10, 50, 501, len(text)) + text + struct.pack(">HH", 0, 0)
    close = connection_close_of(raw)
    assert (close.code, close.text, close.class_id) == (501, "FRAME_ERROR - type \ufffd", 0)


def test_a_close_too_short_for_its_fields_says_so():
    close = connection_close_of(struct.pack(">HHH", 10, 50, 501))
    assert close.code == 0 and "too short" in close.text
