"""CH-04: whether the broker ever sends channel.flow to slow a publisher (under memory or
disk pressure), and how the dialogue goes on when it does: recorded, never judged.

Source: `channel/flow [throttling]`, `basic [03]`. RabbitMQ documents that it never sends
channel.flow and blocks the connection instead (D10). A client cannot raise a memory or
disk alarm on a broker it only reaches by URL, so the pressure here is what a burst of
publishes makes: if no channel.flow comes, the case says it was not exercised."""

from amqp_conformance.fixtures.vocabulary import (INFO, SPEC, flows_from_the_broker, not_exercised, observe,
                                                  observe_answer, publish_on, queued, rule)

RULE = rule("CH-04", "Whether the broker sends channel.flow under pressure (recorded)",
            strength=INFO, guide=SPEC, section="channel.flow", source="channel/flow [throttling]; basic [03]")

BURST = 300
BODY = 64


async def test_broker_flow_is_recorded(broker):
    queue = await broker.queue()
    connection = await broker.connection()
    channel = await connection.channel()
    for _ in range(BURST):
        publish_on(channel, b"x" * BODY, key=queue)
    await observe_answer("messages queued by the burst", queued(channel, queue), str)
    flows = flows_from_the_broker(channel)
    observe("channel.flow from the broker", flows or "none")
    observe("connection.blocked from the broker", "seen" if "Blocked" in connection.trace_text() else "none")
    if not flows:
        not_exercised("no channel.flow came: a client cannot put the broker under memory or disk pressure")
