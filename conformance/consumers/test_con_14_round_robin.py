"""CON-14 (SHOULD): consumers of equal priority on one queue get its messages in turn,
round-robin: with two consumers, deliveries alternate between them, starting with
either. That neither starves is CON-28 (MUST); alternation is judged here, and in
CON-17's equal-share case, at SHOULD strength (amqp_conformance.fixtures.vocabulary.consumers.expect_round_robin)."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONSUMERS, QUEUE_TYPES, SHOULD,
                                                  deliveries_to_equal_consumers, expect_round_robin, rule)

RULE = rule("CON-14", "Consumers of equal priority get deliveries round-robin",
            strength=SHOULD, guide=CONSUMERS, section="priority",
            accepts=("a fixed cycle over the consumers starting at any of them; anything else is "
                     "non-strict (that none starves is CON-28)"))

CONSUMER_TAGS = ["consumer-a", "consumer-b"]
BODIES = [b"m1", b"m2", b"m3", b"m4"]


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_equal_consumers_receive_in_turn(broker, queue_type):
    order = await deliveries_to_equal_consumers(broker, queue_type, CONSUMER_TAGS, BODIES)
    expect_round_robin(order, CONSUMER_TAGS, BODIES)
