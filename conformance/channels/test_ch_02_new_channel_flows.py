"""CH-02: a new channel is flow-active: a consumer on it receives without the client ever
sending channel.flow.

Source: `channel/flow [initial-state]`."""

from amqp_conformance.fixtures.vocabulary import MUST, SPEC, check, flows_from_the_broker, observe, receive, rule

RULE = rule("CH-02", "A new channel is flow-active: its consumer receives with no channel.flow sent",
            strength=MUST, guide=SPEC, section="channel.flow", source="channel/flow [initial-state]")


async def test_a_new_channel_delivers_without_flow(broker):
    queue = await broker.queue(messages=[b"waiting", b"also waiting"])
    connection = await broker.connection()
    channel = await connection.channel()
    await channel.consume(queue, no_ack=True)
    delivered = [delivery.body for delivery in await receive(channel, 2)]
    observe("channel.flow from the broker", flows_from_the_broker(channel) or "none")
    check(delivered == [b"waiting", b"also waiting"], "a consumer on a new channel receives with no channel.flow sent",
          expected=[b"waiting", b"also waiting"], actual=delivered)
