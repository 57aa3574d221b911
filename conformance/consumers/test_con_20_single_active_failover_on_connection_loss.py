"""CON-20: single active consumer: exactly one registered consumer is active, the first
one registered; when its connection is lost (TCP reset, no AMQP close) the next consumer
takes over and receives the unacked messages with redelivered=true.

Each consumer is on a connection of its own. "The first registered consumer becomes the
single active consumer" is the guide's general statement, a MUST on quorum queues. For
classic queues the same guide's "initial SAC selection" says the first active consumer
is picked at random, even with consumer priorities: there a different active consumer
is non-strict."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONSUMERS, MUST, QUEUE_TYPES, check, expect_single_active,
                                                  judge_first_registered_active, receive_one_at_a_time,
                                                  require_single_active_consumer, rule,
                                                  single_active_consumers, who_got)

RULE = rule("CON-20", "Single active consumer: on the active consumer's connection loss the next takes over",
            strength=MUST, guide=CONSUMERS, section="single-active-consumer")


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_next_consumer_takes_over_when_the_active_ones_connection_drops(broker, queue_type):
    await require_single_active_consumer(broker, queue_type)
    queue, channels, tags = await single_active_consumers(broker, queue_type, own_connections=True)
    await broker.publish(queue, b"m1", b"m2", b"m3")
    active, held = await expect_single_active(channels, [b"m1", b"m2"], "exactly one consumer is active")
    judge_first_registered_active(queue_type, channels, tags, active)
    standby = channels[1 - channels.index(active)]

    active.connection.abort()
    after = await receive_one_at_a_time([standby], 2)
    bodies = sorted(d.body for _, d in after)
    check(bodies == [held.body, b"m3"], "the other consumer takes over the unacked and the waiting message",
          expected={tags[channels.index(standby)]: [held.body, b"m3"]}, actual=who_got(after) or "nothing")
    redelivered = {d.body: d.redelivered for _, d in after}
    check(redelivered == {held.body: True, b"m3": False}, "the lost consumer's unacked message comes "
          "back with redelivered=true", expected={held.body: True, b"m3": False}, actual=redelivered)
