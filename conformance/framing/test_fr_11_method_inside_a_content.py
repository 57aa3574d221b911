"""FR-11: a header announces a body of N > 0 octets; a method arriving on that channel
before all N came is a connection exception 505 (unexpected-frame).

Source: PDF 4.2.6. RabbitMQ documents that it does not use 505 for every malformed content
(D28): another code is non-strict, recorded. The invariants after bad input hold."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, expect_connection_exception, frames, raw_connection,
                                                  rule, what_came_back)

RULE = rule("FR-11", "A method inside an unfinished content is a connection exception 505",
            strength=MUST, guide=SPEC, section="basic.publish", source="PDF 4.2.6",
            accepts="another code than 505 is non-strict (D28)")


async def test_a_method_before_the_body_is_complete_is_refused(broker, bystander):
    raw = await raw_connection(broker)
    raw.send(*frames.publish_frames(1, broker.name("nowhere"), b"abcdef", pieces=[3]), frames.barrier_frame(1))
    ending = await what_came_back(raw)
    expect_connection_exception(raw, ending, "a method after 3 of 6 announced octets is a connection exception 505",
                                codes=(505,), tolerated={code: "D28" for code in (501, 502, 503, 504)})
    await bystander.expect_unharmed(ending)
