"""CH-01: channel.open on a channel that is already open is a connection exception, 504
CHANNEL_ERROR.

Source: `channel/open [state]` (on failure: channel-error, which the spec classes as a
connection exception)."""

from amqp_conformance.fixtures.vocabulary import MUST, SPEC, expect_closed, open_again, rule

RULE = rule("CH-01", "channel.open on an open channel closes the connection with 504",
            strength=MUST, guide=SPEC, section="channel.open", source="channel/open [state]")


async def test_opening_an_open_channel_is_a_connection_error(broker):
    connection = await broker.connection()
    channel = await connection.channel()
    open_again(channel)
    await expect_closed(channel, code=504, scope="connection",
                        requirement="a second channel.open on an open channel closes the connection with 504")
