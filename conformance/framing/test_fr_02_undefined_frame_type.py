"""FR-02: a frame of a type AMQP 0-9-1 does not define (0, 4 to 7, 9 to 255) is a framing
error: the broker ends the connection and sends nothing further.

Source: PDF 4.2.3 (an unknown frame type is fatal: close the connection without sending
more). RabbitMQ sends a connection.close 501 first (seen in its source and the suites,
spec-rules.md section 6): non-strict. The invariants after bad input must hold."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, expect_connection_ended, frames, raw_connection, rule,
                                                  what_came_back)

RULE = rule("FR-02", "A frame of an undefined type ends the connection, with nothing further sent",
            strength=MUST, guide=SPEC, section="constants", source="PDF 4.2.3",
            accepts="a connection.close before the socket closes is non-strict (RabbitMQ sends 501: source, suite)")


@pytest.mark.parametrize("frame_type, channel", [(0, 1), (4, 1), (7, 0), (9, 1), (255, 0)],
                         ids=["type-0", "type-4", "type-7", "type-9", "type-255"])
async def test_an_undefined_frame_type_ends_the_connection(broker, bystander, frame_type, channel):
    raw = await raw_connection(broker)
    raw.send(frames.frame(frame_type, channel, b"not a frame of 0-9-1"))
    ending = await what_came_back(raw)
    expect_connection_ended(raw, ending, f"a frame of type {frame_type} ends the connection",
                            close_first="RabbitMQ's choice (source: 501 FRAME_ERROR), the spec says close")
    await bystander.expect_unharmed(ending)
