"""ACK-04: settling the same delivery tag twice (ack, nack or reject) closes the channel
with 406: the first settle made the tag unknown.

The 4.0 translation of the guide says a double ack "does not cause a protocol error";
the 4.1 guide says the channel is closed with PRECONDITION_FAILED "unknown delivery tag",
and RabbitMQ 3.10.8 and 4.0.5 do close it. This rule follows the 4.1 guide. nack and
reject take the same path as ack in RabbitMQ (research/new-rules.md, ACK-14); settling
with one method and then another is ACK-14."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, SETTLE_METHODS, expect_settled_tag_refused,
                                                  rule)

RULE = rule("ACK-04", "Acking the same delivery tag twice closes the channel",
            strength=MUST, guide=CONFIRMS, section="consumer-acks-double-acking")


@pytest.mark.parametrize("method", SETTLE_METHODS)
async def test_settling_a_tag_twice_closes_the_channel(broker, method):
    await expect_settled_tag_refused(broker, method, method)
