"""FR-12: body frames that carry more octets than the header announced are a connection
exception 505 (unexpected-frame).

Source: PDF 4.2.6. Two cases: a second body frame after the announced size was reached,
and one body frame longer than the whole announced size. A broker may see the excess only
when the next frame comes: a passive declare follows, and the close may answer it.
RabbitMQ documents that it does not use 505 for every malformed content (D28): another
code is non-strict. The invariants after bad input hold."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, expect_connection_exception, frames, raw_connection,
                                                  rule, what_came_back)

RULE = rule("FR-12", "Body frames beyond the announced body size are a connection exception 505",
            strength=MUST, guide=SPEC, section="basic.publish", source="PDF 4.2.6",
            accepts="the exception when the frame after the excess arrives; another code than 505 is non-strict (D28)")

SEQUENCES = {"extra-body-frame": ([3], b"abc", [b"defg"]), "one-long-body-frame": ([], b"abc", [b"abcdef"])}


@pytest.mark.parametrize("sequence", list(SEQUENCES))
async def test_a_body_beyond_its_size_is_refused(broker, bystander, sequence):
    pieces, body, excess = SEQUENCES[sequence]
    raw = await raw_connection(broker)
    raw.send(*frames.publish_frames(1, broker.name("nowhere"), body, pieces=pieces),
             *(frames.body_frame(1, data) for data in excess), frames.barrier_frame(1))
    ending = await what_came_back(raw)
    expect_connection_exception(raw, ending, f"body frames beyond the announced {len(body)} octets ({sequence}) "
                                "are a connection exception 505", codes=(505,),
                                tolerated={code: "D28" for code in (501, 502, 503, 504)})
    await bystander.expect_unharmed(ending)
