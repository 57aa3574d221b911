"""CON-21: single active consumer with consumer priorities (quorum queues, RabbitMQ 4.0+):
a waiting consumer of higher priority becomes the active one only once the current
active consumer has settled its outstanding deliveries; until then nobody receives new
messages.

consumer-1 (x-priority 1, prefetch 2) is active and holds m1; consumer-2 (x-priority 3) attaches;
m2 must go to nobody while consumer-1 holds m1, then to consumer-2 once m1 is acked. Unsupported where m2
goes to consumer-1: no priority takeover (RabbitMQ before 4.0, where the first consumer stays
active whatever the newcomer's priority)."""

from amqp_conformance.fixtures.vocabulary import (CONSUMERS, MUST, check, deliveries_across, missing_feature, observe,
                                                  require_single_active_consumer, rule, single_active_consumers,
                                                  timeouts, who_got)

RULE = rule("CON-21", "Single active consumer with priorities: a higher-priority consumer takes over once the "
            "active one has settled", strength=MUST, guide=CONSUMERS, section="single-active-consumer",
            requires=("quorum",))


async def test_higher_priority_consumer_takes_over_after_the_active_one_settles(broker):
    await require_single_active_consumer(broker, "quorum")
    queue, (a_channel,), _ = await single_active_consumers(broker, "quorum", count=1, priority=1, prefetch=2)
    await broker.publish(queue, b"m1")
    first = await deliveries_across([a_channel], 1)
    check(bool(first), "the only consumer receives m1", expected="m1", actual="nothing")
    m1 = first[0][1]
    b_channel = await a_channel.connection.channel()
    await b_channel.qos(prefetch_count=2)
    await b_channel.consume(queue, consumer_tag="consumer-2", arguments={"x-priority": 3})

    await broker.publish(queue, b"m2")
    early = await deliveries_across([a_channel, b_channel], 1, within=timeouts.NEGATIVE_WINDOW)
    observe("while a holds m1", who_got(early) or "nothing")
    if early and early[0][0] is a_channel:
        missing_feature(broker, "single-active-consumer-priority-takeover",
                        f"m2, published after consumer-2 (x-priority 3) attached, went to consumer-1 "
                        f"(x-priority 1) while it still held m1: {who_got(early)}",
                        queue_type="quorum", expected="m2 held back until consumer-1 settles m1")
    check(not early, "no consumer receives while the active one quiesces with an unsettled delivery",
          expected="nothing", actual=who_got(early))

    a_channel.ack(m1.delivery_tag)
    after = await deliveries_across([a_channel, b_channel], 1)
    check(len(after) == 1 and after[0][0] is b_channel, "once the active consumer has settled, the "
          "higher-priority one takes over", expected={"consumer-2": [b"m2"]}, actual=who_got(after) or "nothing")
