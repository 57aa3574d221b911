"""FR-10: a content frame out of its place is a connection exception 505 (unexpected-frame):
basic.publish followed by a body frame or by another method instead of its header; a header
or a body with no content method before it.

Source: PDF 4.2.6 (a content is its method, one header, then its body frames, in that order
and with nothing else on the channel between). RabbitMQ answers 505. RabbitMQ documents
that it does not use 505 for every malformed content (D28): another code is non-strict.
The invariants after bad input hold."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, expect_connection_exception, frames, raw_connection,
                                                  rule, what_came_back)

RULE = rule("FR-10", "A content without its method or header before its frames is a connection exception 505",
            strength=MUST, guide=SPEC, section="basic.publish", source="PDF 4.2.6",
            accepts="another code than 505 is non-strict (D28)")

# Each sequence as the frames of one well-formed publish (method, header, body) rearranged.
SEQUENCES = {
    "publish-then-body": lambda publish, header, body: [publish, body],
    "publish-then-method": lambda publish, header, body: [publish, frames.barrier_frame(1)],
    "header-alone": lambda publish, header, body: [header, body],
    "body-alone": lambda publish, header, body: [body],
}


@pytest.mark.parametrize("sequence", list(SEQUENCES))
async def test_a_content_out_of_sequence_is_refused(broker, bystander, sequence):
    raw = await raw_connection(broker)
    raw.send(*SEQUENCES[sequence](*frames.publish_frames(1, broker.name("nowhere"), b"abc")))
    ending = await what_came_back(raw)
    expect_connection_exception(raw, ending, f"a content sent as {sequence} is a connection exception 505",
                                codes=(505,), tolerated={code: "D28" for code in (501, 502, 503, 504)})
    await bystander.expect_unharmed(ending)
