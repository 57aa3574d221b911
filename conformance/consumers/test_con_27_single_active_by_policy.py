"""CON-27: single active consumer set by a policy (`single-active-consumer`) behaves as the
queue argument does: the first consumer registered is fed, and the waiting one gets
nothing while the active one's prefetch is full (the steps of CON-26).

The policy is set with the node's rabbitmqctl (managed RabbitMQ) or through the
management HTTP API (--management-url). The CONSUMERS guide itself says single active
consumer cannot be enabled by a policy (policies come and go; the feature must not), and
RabbitMQ refuses the key: a refusal is unsupported, quoting the tool's reason."""

import pytest

from fixtures import (CONSUMERS, MUST, QUEUE_TYPES, expect_only_the_first_consumer_fed, rule,
                      single_active_consumers)

RULE = rule("CON-27", "Single active consumer set by a policy behaves as the queue argument does",
            strength=MUST, guide=CONSUMERS, section="single-active-consumer")

POLICY_KIND = "sacpolicy"
PREFETCH = 2
BODIES = [b"m1", b"m2", b"m3", b"m4", b"m5"]


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_single_active_consumer_by_policy(broker, queue_policy, queue_type):
    queue_policy(POLICY_KIND, {"single-active-consumer": True})
    queue, channels, tags = await single_active_consumers(broker, queue_type, prefetch=PREFETCH,
                                                          policy_kind=POLICY_KIND)
    await broker.publish(queue, *BODIES)
    await expect_only_the_first_consumer_fed(channels, tags, BODIES, PREFETCH)
