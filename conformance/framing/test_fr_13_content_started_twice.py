"""FR-13: a second content header, or a second basic.publish, before the first content is
complete is a connection exception 505 (unexpected-frame).

Source: PDF 4.2.6. RabbitMQ documents that it does not use 505 for every malformed content
(D28): another code is non-strict. The invariants after bad input hold."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, expect_connection_exception, frames, raw_connection,
                                                  rule, what_came_back)

RULE = rule("FR-13", "A content started again before it is complete is a connection exception 505",
            strength=MUST, guide=SPEC, section="basic.publish", source="PDF 4.2.6",
            accepts="another code than 505 is non-strict (D28)")

SEQUENCES = {"second-header": lambda publish, header, body: [publish, header, header, body],
             "second-publish": lambda publish, header, body: [publish, header, publish, header, body]}


@pytest.mark.parametrize("sequence", list(SEQUENCES))
async def test_a_content_started_twice_is_refused(broker, bystander, sequence):
    raw = await raw_connection(broker)
    raw.send(*SEQUENCES[sequence](*frames.publish_frames(1, broker.name("nowhere"), b"abc")))
    ending = await what_came_back(raw)
    expect_connection_exception(raw, ending, f"a {sequence.replace('-', ' ')} inside a content is a connection "
                                "exception 505", codes=(505,), tolerated={code: "D28" for code in (501, 502, 503, 504)})
    await bystander.expect_unharmed(ending)
