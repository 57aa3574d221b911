"""ACK-10: on a transactional channel, an ack of an unknown or already-acked tag is an
error at once (the spec: the check must not wait for tx.commit). The channel is closed
with 406 before any commit is sent."""

import pytest

from amqp_conformance.fixtures.vocabulary import CONFIRMS, MUST, expect_closed, rule

RULE = rule("ACK-10", "On a transacted channel an unknown or double ack fails at once, not at commit",
            strength=MUST, guide=CONFIRMS, section="consumer-acks-double-acking", requires=("tx",))

NEVER_DELIVERED = 999


def ack_unknown_tag(channel, delivery):
    channel.ack(NEVER_DELIVERED)
    return NEVER_DELIVERED


def ack_twice(channel, delivery):
    channel.ack(delivery.delivery_tag)
    channel.ack(delivery.delivery_tag)
    return delivery.delivery_tag


@pytest.mark.parametrize("bad_ack", [ack_unknown_tag, ack_twice], ids=["unknown-tag", "double-ack"])
async def test_bad_ack_in_a_transaction_closes_the_channel_before_commit(broker, bad_ack):
    queue = await broker.queue(messages=[b"m"])
    async with broker.channel() as channel:
        await channel.tx_select()
        delivery = await channel.get(queue)
        bad_tag = bad_ack(channel, delivery)
        # expect_closed's barrier is not tx.commit: the close must come without one.
        await expect_closed(channel, code=406, text=f"unknown delivery tag {bad_tag}",
                            requirement="a bad ack inside a transaction closes the channel at once")
