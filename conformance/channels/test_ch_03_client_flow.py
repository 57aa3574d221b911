"""CH-03: a client's channel.flow(active=false) is answered promptly with flow-ok(false);
from then on the broker sends no delivery to consumers on that channel until
flow(active=true), while basic.get keeps answering; after flow(true) the deliveries come.

Source: `channel/flow [bidirectional]`, the flow method's doc (get-ok is not affected).
RabbitMQ documents flow(active=false) as unsupported (D10) and closes the connection with
540 NOT_IMPLEMENTED: such a refusal makes the rule unsupported. Nothing being delivered is
the one thing no round trip can prove: it is watched for the house's negative window."""

from amqp_conformance.fixtures.vocabulary import (SHOULD, SPEC, Delivery, check, fetch, flow, publish_on, pushed,
                                                  receive, rule, timeouts)

RULE = rule("CH-03", "Client flow(false) pauses deliveries, not basic.get, until flow(true)",
            strength=SHOULD, guide=SPEC, section="channel.flow", source="channel/flow [bidirectional]",
            accepts="unsupported where the broker refuses flow(active=false) with 540 (RabbitMQ, D10)",
            # "no delivery while paused" is watched for a window: the frames alone do not replay it
            timing_dependent=True)


async def test_client_flow_pauses_deliveries(broker):
    consumed, fetched = await broker.queue(), await broker.queue(messages=[b"fetched"])
    connection = await broker.connection()
    channel = await connection.channel()
    paused = await flow(channel, active=False)
    check(paused.active is False, "flow(false) is answered with flow-ok(false)", expected=False, actual=paused.active)
    await channel.consume(consumed, no_ack=True)
    publish_on(channel, b"held back", key=consumed)
    got = await fetch(channel, fetched)
    check(got is not None and got.body == b"fetched", "basic.get answers while flow is off",
          expected=b"fetched", actual=got and got.body)
    await channel.watch(Delivery, within=timeouts.NEGATIVE_WINDOW)
    check(not pushed(channel), "no delivery while flow is off", expected="nothing", actual=pushed(channel))
    resumed = await flow(channel, active=True)
    check(resumed.active is True, "flow(true) is answered with flow-ok(true)", expected=True, actual=resumed.active)
    await receive(channel, 1)
    check(pushed(channel) == [b"held back"], "after flow(true) the held delivery comes", expected=[b"held back"],
          actual=pushed(channel))
