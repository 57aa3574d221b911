"""RT-08: publishing to an exchange that does not exist closes the publishing channel with
404 NOT_FOUND; the connection and its other channels live on, and new channels open.

Source: `basic/publish/exchange [must-exist]` (on failure: not-found, a channel exception)."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, expect_channel_opens, expect_closed, expect_open, publish_on,
                                                  rule)

RULE = rule("RT-08", "Publishing to a missing exchange closes the channel with 404",
            strength=MUST, guide=SPEC, section="basic.publish.exchange", source="basic/publish/exchange [must-exist]")


async def test_publish_to_a_missing_exchange_closes_only_its_channel(broker):
    connection = await broker.connection()
    publisher, bystander = await connection.channel(), await connection.channel()
    publish_on(publisher, b"to nowhere", exchange=broker.name("missing-x"), key="any")
    await expect_closed(publisher, code=404, text="NOT_FOUND",
                        requirement="a publish to a missing exchange closes its channel with 404")
    await expect_open(bystander, "the connection's other channels live on")
    await expect_channel_opens(connection, "a new channel opens on the same connection")
