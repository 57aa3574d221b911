"""CN-07: before tuning, a frame of exactly 4096 octets is accepted: a start-ok padded
through its client-properties to 4096 octets is answered with tune.

Source: connection/tune/frame-max [minimum]: until frame-max is agreed a peer must accept
frames of up to 4096 octets (the frame minimum, header and end octet included). A larger
start-ok may be refused (RabbitMQ does, as suites show): not judged here."""

from amqp_conformance.fixtures.vocabulary import (FRAME_MIN_SIZE, HANDSHAKE_ONLY, MUST, SPEC, after_start_ok,
                                                  check, rule)

RULE = rule("CN-07", "Before tuning, a start-ok of exactly 4096 octets is accepted", strength=MUST, guide=SPEC,
            section="connection.tune", source="connection/tune/frame-max [minimum]")

pytestmark = HANDSHAKE_ONLY


async def test_start_ok_of_4096_octets_is_answered_with_tune(broker):
    ending = await after_start_ok(broker, frame_size=FRAME_MIN_SIZE)
    check(ending.proceeded is not None,
          "a start-ok frame of 4096 octets must be accepted before tuning",
          expected="connection.tune (or secure)", actual=str(ending))
