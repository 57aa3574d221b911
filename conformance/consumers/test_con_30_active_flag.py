"""CON-30: the `active` flag of consumers, as the management API (and list_consumers)
shows it. Without single active consumer every consumer of a queue is active (the guide:
always on classic queues; on quorum queues unless its node is suspected down, which on one
running node it is not). With single active consumer only the consumer being fed is
active, the waiting ones are not, and when it leaves the flag moves to the one that takes
over its deliveries.

The flags are read from the management API, polled until they show what the rule waits
for (bounded: the API follows the broker's events a moment late), then judged; the
deliveries say which consumer is the one being fed. An API that lists the consumers
without an `active` field has no such flag to judge: unsupported at the first reading that
lists them."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONSUMERS, MANAGEMENT_BOUND_S, MUST, QUEUE_TYPES, active_flags,
                                                  check, deliveries_across, lacks_active_flag, observe,
                                                  require_single_active_consumer, rule, single_active_consumers,
                                                  timeouts, who_got)

RULE = rule("CON-30", "The active flag: every consumer without single active consumer; with it, only the one "
            "fed, and it moves with the delivery", strength=MUST, guide=CONSUMERS, section="consumer-activity",
            accepts="unsupported where the management API lists consumers without an `active` field")

# The backstop covers starting the node with the management API (the worker's first such
# case) as well as the bounded polls of the API.
pytestmark = pytest.mark.timeout(timeouts.NODE_BACKSTOP_S)
WITHIN = f"within {MANAGEMENT_BOUND_S:.0f} s of polling the management API"


@pytest.mark.case("every-consumer")
@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_every_consumer_is_active_without_single_active_consumer(management, queue_type):
    broker, api = management.broker, management.api
    queue = await broker.queue(queue_type)
    connection = await broker.connection()
    for tag in ("consumer-1", "consumer-2"):
        await (await connection.channel()).consume(queue, consumer_tag=tag)
    flags = active_flags(await api.poll(queue, lambda r: list(active_flags(r).values()) == [True, True],
                                      lacks=lacks_active_flag))
    observe("active flags", flags)
    check(sorted(flags) == ["consumer-1", "consumer-2"] and all(v is True for v in flags.values()),
          "without single active consumer every consumer is active", expected={"consumer-1": True,
                                                                                "consumer-2": True},
          actual=flags or f"no consumer listed {WITHIN}")


def one_of_two_active(reading: dict) -> bool:
    return sorted(active_flags(reading).values(), key=str) == [False, True]


@pytest.mark.case("single-active")
@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_only_the_fed_consumer_is_active_and_the_flag_moves(management, queue_type):
    broker, api = management.broker, management.api
    await require_single_active_consumer(broker, queue_type)
    queue, channels, tags = await single_active_consumers(broker, queue_type)

    reading = await api.poll(queue, one_of_two_active, lacks=lacks_active_flag)
    flags = active_flags(reading)
    observe("active flags, two consumers", flags)
    check(one_of_two_active(reading),
          "with single active consumer exactly one consumer is active, the other waits (active=false)",
          expected="one of consumer-1, consumer-2 true, the other false", actual=flags or f"none listed {WITHIN}")
    await broker.publish(queue, b"m1")
    fed = await deliveries_across(channels, 1)
    flagged = [tag for tag, active in flags.items() if active]
    check(len(fed) == 1 and [fed[0][1].consumer_tag] == flagged, "the consumer flagged active is the one fed",
          expected=f"m1 to {flagged}", actual=who_got(fed) or "nothing")

    leaving = fed[0][0]
    leaving.ack(fed[0][1].delivery_tag)
    await leaving.cancel(fed[0][1].consumer_tag)
    staying = tags[1 - channels.index(leaving)]
    flags = active_flags(await api.poll(queue, lambda r: active_flags(r) == {staying: True}, lacks=lacks_active_flag))
    observe("active flags, after the active one left", flags)
    check(flags == {staying: True}, "once the active consumer leaves, the flag moves to the waiting one",
          expected={staying: True}, actual=flags or f"none listed {WITHIN}")
    await broker.publish(queue, b"m2")
    fed = await deliveries_across(channels, 1)
    check([d.consumer_tag for _, d in fed] == [staying], "the consumer now flagged active is the one fed",
          expected=f"m2 to {staying}", actual=who_got(fed) or "nothing")
