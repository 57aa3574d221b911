"""FR-07: a content header or body frame on channel 0 is a connection exception 504
(channel-error).

Source: PDF 4.2.6.1 (content frames belong to a channel other than 0). The spec's constants
name 505 (unexpected-frame) for a content frame where none is expected, which reads this
case too: 504 and 505 both pass. RabbitMQ answers 505. The invariants after bad input hold."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, expect_connection_exception, frames, raw_connection,
                                                  rule, what_came_back)

RULE = rule("FR-07", "A content header or body frame on channel 0 is a connection exception",
            strength=MUST, guide=SPEC, section="constants", source="PDF 4.2.6.1",
            accepts="504 or 505 (the constants' unexpected-frame reads the case as well)")

FRAMES = {"header": lambda: frames.header_frame(0, 3), "body": lambda: frames.body_frame(0, b"abc")}


@pytest.mark.parametrize("content", list(FRAMES))
async def test_a_content_frame_on_channel_zero_is_refused(broker, bystander, content):
    raw = await raw_connection(broker)
    raw.send(FRAMES[content]())
    ending = await what_came_back(raw)
    expect_connection_exception(raw, ending, f"a content {content} frame on channel 0 is a connection exception",
                                codes=(504, 505))
    await bystander.expect_unharmed(ending)
