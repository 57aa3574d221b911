"""CN-09: a tune-ok whose frame-max is above the broker's (non-zero) proposal ends the
connection before open-ok, without a close handshake.

Source: connection/tune-ok/frame-max [upper-limit]; PDF 2.2.4 (a connection.close first is
non-strict, convention 2: RabbitMQ's source sends 530 in some versions). The ERRATA (10)
leaves open what 0 against a non-zero proposal means: recorded (INFO), not judged. A
broker that proposes no limit cannot be exceeded: not exercised."""

from amqp_conformance.fixtures.vocabulary import (HANDSHAKE_ONLY, MUST, SPEC, above_the_proposal,
                                                  expect_refused_before_open, rule)

RULE = rule("CN-09", "A tune-ok frame-max above the broker's proposal ends the connection", strength=MUST,
            guide=SPEC, section="connection.tune-ok", source="connection/tune-ok/frame-max [upper-limit]",
            accepts="a silent close after a pause; a connection.close first is non-strict; frame-max 0 against "
                    "a proposal is recorded only (ERRATA 10)")

pytestmark = HANDSHAKE_ONLY


async def test_frame_max_above_the_proposal_is_refused(broker):
    ending = await above_the_proposal(broker, "frame_max")
    if ending is None:
        return
    expect_refused_before_open(ending, "a tune-ok frame-max above the broker's proposal must end the connection")
