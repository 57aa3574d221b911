"""CON-28: consumers of equal priority do not starve. Of N·k messages published to a
queue with N automatic-ack consumers of equal priority (free capacity throughout), each
consumer gets at least one. How evenly and in which turn they share is CON-14 (SHOULD)."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONSUMERS, MUST, QUEUE_TYPES, deliveries_to_equal_consumers,
                                                  expect_no_consumer_starves, observe, rule, shares)

RULE = rule("CON-28", "Consumers of equal priority do not starve: each gets some of the messages",
            strength=MUST, guide=CONSUMERS, section="priority",
            accepts=("any share and any order of the messages, so long as every consumer gets at "
                     "least one"))

CONSUMER_TAGS = ["consumer-1", "consumer-2", "consumer-3"]
PER_CONSUMER = 4  # k: a broker that goes round-robin gives each consumer this many
BODIES = [b"m%d" % n for n in range(1, len(CONSUMER_TAGS) * PER_CONSUMER + 1)]


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_no_equal_consumer_starves(broker, queue_type):
    order = await deliveries_to_equal_consumers(broker, queue_type, CONSUMER_TAGS, BODIES)
    observe("deliveries per consumer", shares(order, CONSUMER_TAGS))
    expect_no_consumer_starves(order, CONSUMER_TAGS, len(BODIES))
