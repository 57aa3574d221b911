"""CON-27: single active consumer cannot be enabled by a policy: a policy carrying a
`single-active-consumer` key is refused, or, where a broker takes it, the queue it applies
to is not single-active: its consumers share its messages as on any plain queue.

The CONSUMERS guide says the feature can only be enabled by the x-single-active-consumer
argument at declare, and why: policies are dynamic, they come and go, and a policy removed
from a queue would suddenly feed its waiting consumers in parallel, the opposite of what a
single active consumer is for. The guide states this as what the broker does, with a reason
that is about correctness, not taste; a broker that makes a queue single-active from a
policy opens exactly the hazard the guide names, so that is a fail, not non-strict.

The policy is set with rabbitmqctl on a node this worker starts (managed RabbitMQ) or
through the management HTTP API (--management-url); a refusal is the expected answer and is recorded as it was
given. A refusal is told by the broker's own answer (rabbitmqctl's validation error, the
API's 400); a tool that fails without one is an error of the run, never a refusal.
Unsupported only when the suite has no way to set a policy. Refused or taken, the queue the
policy names is then checked: two consumers, prefetch 2 each, hold what they get; four
messages: a plain queue must fill both prefetches, a single-active one only the active
consumer's."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONSUMERS, MUST, QUEUE_TYPES, check, deliveries_across,
                                                  observe, rule, single_active_consumers, who_got)

RULE = rule("CON-27", "Single active consumer cannot be enabled by a policy: the key is refused or has no effect",
            strength=MUST, guide=CONSUMERS, section="single-active-consumer")

POLICY_KIND = "sacpolicy"
PREFETCH = 2
BODIES = [b"m1", b"m2", b"m3", b"m4"]


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_single_active_consumer_cannot_be_set_by_policy(queue_policy, queue_type):
    refusal = await queue_policy.apply(POLICY_KIND, {"single-active-consumer": True}, refusal_is_an_answer=True)
    if refusal:
        observe("policy refused", refusal)
    # Refused or taken, the queues the policy names must still be plain ones.
    queue, channels, tags = await single_active_consumers(queue_policy.broker, queue_type, prefetch=PREFETCH,
                                                          policy_kind=POLICY_KIND)
    await queue_policy.broker.publish(queue, *BODIES)
    received = await deliveries_across(channels, len(BODIES))
    fed = {ch for ch, _ in received}
    check(fed == set(channels), "the policy does not make the queue single-active: both consumers are fed",
          expected={tag: f"{PREFETCH} messages" for tag in tags}, actual=who_got(received) or "nothing")
