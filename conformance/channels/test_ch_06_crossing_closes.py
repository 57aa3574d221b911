"""CH-06: when the client's channel.close crosses the broker's own channel.close (each sent
before the other arrived), the broker answers the client's close with close-ok, and the
connection lives on.

Source: `channel/close [stability]` (a close received after sending close is answered with
close-ok), PDF 2.3.7. The crossing is made by sending channel.close right behind a frame
that provokes a channel exception; if the broker's close did not cross (it answered the
client's close first) the case says it was not exercised."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, check, close_crossing_the_broker_s, expect_channel_opens,
                                                  expect_open,
                                                  not_exercised, observe, rule)

RULE = rule("CH-06", "A client close crossing the broker's close gets close-ok, no connection error",
            strength=MUST, guide=SPEC, section="channel.close", source="channel/close [stability]; PDF 2.3.7")


async def test_crossing_closes_end_in_close_ok(broker):
    connection = await broker.connection()
    channel, bystander = await connection.channel(), await connection.channel()
    crossing = await close_crossing_the_broker_s(channel, broker.name("missing"))
    observe("the broker's close", str(crossing.broker_close) if crossing.broker_close else "none")
    check(crossing.close_ok, "the client's channel.close is answered with close-ok", expected="channel.close-ok",
          actual=crossing.problem)
    if crossing.broker_close is None:
        not_exercised("the broker answered the client's close before raising its own: the closes did not cross")
    await expect_open(bystander, "the connection lives on: no connection exception")
    await expect_channel_opens(connection, "the channel number opens again", channel.number)
