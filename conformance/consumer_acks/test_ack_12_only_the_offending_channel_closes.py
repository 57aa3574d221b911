"""ACK-12: an ack error is a channel error. Only the offending channel is closed; the
connection, its other channels and their outstanding deliveries keep working, and new
channels can be opened on it."""

from amqp_conformance.fixtures.vocabulary import CONFIRMS, MUST, expect_closed, expect_open, rule

RULE = rule("ACK-12", "Only the offending channel closes: the connection and its other channels keep working",
            strength=MUST, guide=CONFIRMS, section="consumer-acks-double-acking")

NEVER_DELIVERED = 999


async def test_an_ack_error_closes_only_its_channel(broker):
    queue = await broker.queue(messages=[b"held-elsewhere"])
    connection = await broker.connection()
    offending, bystander = await connection.channel(), await connection.channel()
    held = await bystander.get(queue)

    offending.ack(NEVER_DELIVERED)
    await expect_closed(offending, code=406, text=f"unknown delivery tag {NEVER_DELIVERED}",
                        requirement="acking an unknown tag closes the offending channel")

    await expect_open(bystander, "another channel of the same connection stays open")
    bystander.ack(held.delivery_tag)
    await expect_open(bystander, "the other channel's outstanding delivery is still known there and can be acked")
    await expect_open(await connection.channel(), "the connection still opens new channels")
