"""FR-09: a content header whose class-id is not its method's class (a Basic publish
followed by a header of class 50) is a connection exception.

Source: PDF 4.2.6.1 names 501 (frame-error) for a header of the wrong class, PDF 4.2.6 505
(unexpected-frame) for a content out of sequence: both pass. RabbitMQ answers 505. The
invariants after bad input hold."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, expect_connection_exception, frames, raw_connection,
                                                  rule, what_came_back)

RULE = rule("FR-09", "A content header of another class than its method's is a connection exception",
            strength=MUST, guide=SPEC, section="basic.publish", source="PDF 4.2.6.1; PDF 4.2.6",
            accepts="501 or 505")


async def test_a_header_of_another_class_is_refused(broker, bystander):
    raw = await raw_connection(broker)
    publish, _, body = frames.publish_frames(1, broker.name("nowhere"), b"abc")
    raw.send(publish, frames.header_frame(1, 3, class_id=50), body)
    ending = await what_came_back(raw)
    expect_connection_exception(raw, ending, "a Basic publish with a header of class 50 is a connection exception",
                                codes=(501, 505))
    await bystander.expect_unharmed(ending)
