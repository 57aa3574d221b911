"""CON-32 (INFO): which consumer a classic queue with single active consumer makes active
first when its consumers have priorities. The CONSUMERS guide ("initial SAC selection")
says the first active consumer of a classic queue is picked at random, consumer
priorities notwithstanding (on quorum queues a higher-priority newcomer takes over: CON-21).

Several registrations, each on a fresh queue: consumer-1 (x-priority 1) registers first,
consumer-2 (x-priority 10) second; one message is published and whoever receives it is
the active one. The tally is recorded, never judged."""

from collections import Counter

from amqp_conformance.fixtures.vocabulary import (CONSUMERS, INFO, SINGLE_ACTIVE, deliveries_across, observe,
                                                  priority_consumers, require_single_active_consumer, rule)

RULE = rule("CON-32", "Classic queue, single active consumer and priorities: which consumer is active first",
            strength=INFO, guide=CONSUMERS, section="single-active-consumer")

REGISTRATIONS = 6
CONSUMERS_IN_ORDER = [("consumer-1", 1, 1), ("consumer-2", 10, 1)]  # (tag, x-priority, prefetch)
SHOWN = {"consumer-1": "the first registered (x-priority 1)", "consumer-2": "the higher priority (x-priority 10)"}


async def test_first_active_consumer_of_a_classic_queue_with_priorities(broker):
    await require_single_active_consumer(broker, "classic")
    active_first = []
    for _ in range(REGISTRATIONS):
        queue, channels = await priority_consumers(broker, "classic", CONSUMERS_IN_ORDER, arguments=SINGLE_ACTIVE)
        await broker.publish(queue, b"which")
        got = await deliveries_across(list(channels.values()), 1)
        active_first.append(got[0][1].consumer_tag if got else "nobody")
        await channels["consumer-1"].connection.close()
    observe("active first, per registration", active_first)
    observe("tally", {SHOWN.get(tag, tag): count for tag, count in Counter(active_first).items()})
