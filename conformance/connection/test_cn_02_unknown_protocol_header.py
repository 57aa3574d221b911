"""CN-02: a protocol header the broker does not speak (another protocol's, or an AMQP
version it lacks) is answered with exactly one valid 8-octet AMQP protocol header, the
one it would accept, and then the socket is closed.

Source: connection/start [protocol-name]; PDF 4.2.2. A header naming a protocol the broker
does speak is not unknown: RabbitMQ 4 speaks AMQP 1.0, so its answer to `AMQP 0 1 0 0` may
be 1.0's own header (the SASL one) and then it would go on in 1.0. An answer that echoes
the header sent is recorded as "speaks it" and not judged further; any other header must
be followed by the close, with nothing else. The 0-8 and 0-9 headers are left out: they are
versions RabbitMQ supports, not unknown ones."""

import pytest

from amqp_conformance.fixtures.vocabulary import (HANDSHAKE_ONLY, MUST, SPEC, by_hand, check, handshake_bound,
                                                  how_it_ends, observe, protocol_header, rule, timeouts)

RULE = rule("CN-02", "An unknown protocol header gets one valid AMQP header, then the socket closes",
            strength=MUST, guide=SPEC, section="connection.start",
            source="connection/start [protocol-name]; PDF 4.2.2",
            accepts="any valid 8-octet AMQP header (\"AMQP\" and four octets: 0-9-1's, or 1.0's SASL header on a "
                    "broker that speaks 1.0); a header echoing the one sent means the broker speaks that protocol, "
                    "recorded")

pytestmark = HANDSHAKE_ONLY

UNKNOWN_HEADERS = {
    "http": b"HTTP/1.1",
    "amqp-0-10-in-0-9-1-layout": protocol_header(0, 0, 10, 0),
    "amqp-1-0": protocol_header(0, 1, 0, 0),
    "amqp-0-9-2": protocol_header(0, 0, 9, 2),
}


@pytest.mark.parametrize("sent", UNKNOWN_HEADERS.values(), ids=UNKNOWN_HEADERS.keys())
async def test_unknown_header_is_answered_by_a_header_and_a_close(broker, sent):
    requirement = "the broker must answer an unknown protocol header with a valid AMQP header, then close"
    async with by_hand(broker) as connection:
        connection.send_header(sent)
        first = await connection.next(timeouts.REPLY)
        answer = first.what if first is not None else None
        check(isinstance(answer, bytes) and len(answer) == 8 and answer.startswith(b"AMQP"), requirement,
              expected="an 8-octet header starting with AMQP",
              actual=str(first or f"nothing within {timeouts.REPLY} s"))
        observe("header answered", repr(answer))
        if answer == sent:
            observe("speaks it", f"the broker echoed {sent!r}: it speaks that protocol; its close is not judged")
            return
        ending = await how_it_ends(connection)
    check(not ending.heard, requirement, expected="nothing after the header", actual="; ".join(ending.heard))
    check(ending.ended, requirement, expected=f"the socket closed within {handshake_bound():.0f} s after the header",
          actual=str(ending))
