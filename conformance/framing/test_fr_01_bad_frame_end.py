"""FR-01: a frame whose last octet is not the frame-end 0xCE is a framing error: the broker
ends the connection and sends nothing further.

Source: PDF 4.2.3 (a frame whose end octet is wrong is a fatal error: close the connection
without sending anything more). RabbitMQ sends a connection.close 501 before closing the
socket (its source; spec-rules.md section 6, "seen in RabbitMQ's source"): recorded as
non-strict, never a pass of its own. Whatever the broker does, the invariants after bad
input must hold (a bystander's confirmed messages, a fresh client served, no 541)."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, expect_connection_ended, frames, rule, spec,
                                                  what_came_back, raw_connection)

RULE = rule("FR-01", "A frame not ending in 0xCE ends the connection, with nothing further sent",
            strength=MUST, guide=SPEC, section="constants", source="PDF 4.2.3",
            accepts="a connection.close before the socket closes is non-strict (RabbitMQ sends 501: source)")


@pytest.mark.parametrize("end", [0x00, 0xCD, 0xFF], ids=["end-00", "end-CD", "end-FF"])
async def test_a_wrong_frame_end_ends_the_connection(broker, bystander, end):
    raw = await raw_connection(broker)
    declare = frames.payload_of(frames.method_frame(spec.Exchange.Declare(exchange="amq.direct", passive=True), 1))
    raw.send(frames.frame(frames.METHOD, 1, declare, end=end))
    ending = await what_came_back(raw)
    expect_connection_ended(raw, ending, "a frame whose end octet is not 0xCE ends the connection",
                            close_first="RabbitMQ's choice (its source: 501 FRAME_ERROR), the spec says close")
    await bystander.expect_unharmed(ending)
