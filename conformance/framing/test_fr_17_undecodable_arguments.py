"""FR-17: a method whose arguments cannot be decoded (a string length past the end of the
frame, a table length past it, a field type tag the spec does not define, a field cut
short, a long-string length of 2 GB) is a connection exception.

Source: PDF 2.3.6 and the constants frame-error (501) and syntax-error (502). Which of
the two codes is not fixed by the spec: any code is recorded; so is a socket closed with
no code at all (RabbitMQ for an unknown type tag: its reader process ends). The broker
must never read into the next frame: the frame's own end is where decoding stops. The
invariants after bad input hold."""

import struct

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, RAW_INPUT, SPEC, expect_connection_exception, frames,
                                                  raw_connection, rule, what_came_back)

RULE = rule("FR-17", "Undecodable method arguments are a connection exception",
            strength=MUST, guide=SPEC, section="constants", source="PDF 2.3.6; constant frame-error; "
            "constant syntax-error", accepts="any code (501 or 502 expected), or none, recorded")

DECLARE = struct.pack(">HHH", 50, 10, 0)  # queue.declare, ticket 0
ARGUMENTS = b"\x01q" + b"\x00"  # queue "q", no flag set; the argument table follows
PAYLOADS = {
    "string-past-the-frame": DECLARE + bytes([200]) + b"ten octets",
    "table-past-the-frame": DECLARE + b"\x00\x00" + struct.pack(">I", 10000) + b"abc",
    "unknown-type-tag": DECLARE + ARGUMENTS + struct.pack(">I", 6) + b"\x01aZxyz",
    "field-cut-short": DECLARE + ARGUMENTS + struct.pack(">I", 4) + b"\x01aI\x00",
    "2-GB-long-string": DECLARE + ARGUMENTS + struct.pack(">I", 12) + b"\x01aS" + struct.pack(">I", 0x80000000) + b"xx",
}


@RAW_INPUT
@pytest.mark.parametrize("payload", list(PAYLOADS))
async def test_undecodable_arguments_are_refused(broker, bystander, payload):
    raw = await raw_connection(broker)
    # The next frame is a well-formed passive declare: a broker that reads past the bad
    # frame's end would take it for the rest of the bad one.
    raw.send(frames.frame(frames.METHOD, 1, PAYLOADS[payload]), frames.barrier_frame(1))
    ending = await what_came_back(raw)
    expect_connection_exception(raw, ending, f"queue.declare with {payload.replace('-', ' ')} is a connection "
                                "exception")
    await bystander.expect_unharmed(ending)
