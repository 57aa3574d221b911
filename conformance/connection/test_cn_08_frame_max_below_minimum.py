"""CN-08: a tune-ok whose frame-max is not zero and below 4096 ends the connection before
open-ok.

Source: connection/tune-ok/frame-max [minimum]. Before open-ok a fault is a silent close
(PDF 2.2.4); RabbitMQ's source answers with connection.close 530 first in some versions,
which the catalogue calls non-strict (convention 2); a pause before the close is allowed
(PDF 4.10.2)."""

from amqp_conformance.fixtures.vocabulary import (FRAME_MIN_SIZE, HANDSHAKE_ONLY, MUST, SPEC,
                                                  expect_refused_before_open, refusal_of, rule)

RULE = rule("CN-08", "A tune-ok frame-max below 4096 ends the connection before open-ok", strength=MUST,
            guide=SPEC, section="connection.tune-ok", source="connection/tune-ok/frame-max [minimum]",
            accepts="a silent close after a pause; a connection.close (RabbitMQ: 530) first is non-strict")

pytestmark = HANDSHAKE_ONLY


async def test_frame_max_below_the_minimum_is_refused(broker):
    ending = await refusal_of(broker, "frame-max 2048", frame_max=FRAME_MIN_SIZE // 2)
    expect_refused_before_open(ending, "a tune-ok frame-max below 4096 must end the connection before open-ok")
