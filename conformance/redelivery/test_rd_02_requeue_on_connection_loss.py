"""RD-02: when a consumer's connection is lost, its unacked deliveries are requeued and
come back with redelivered=true; nothing is lost. Here the client closes cleanly, or its
TCP connection is reset without any AMQP close (a crashed client). Toxiproxy faults
(silent peer, proxy down, cut mid-frame) come with the fault layer."""

import pytest

from amqp_conformance.fixtures.vocabulary import CONFIRMS, MUST, check, expect_deliveries, rule, timeouts

RULE = rule("RD-02", "Losing the connection requeues unacked deliveries with redelivered=true",
            strength=MUST, guide=CONFIRMS, section="automatic-requeueing")

BODIES = [b"first", b"second", b"third"]


async def lose_cleanly(connection):
    await connection.close()


async def lose_by_tcp_reset(connection):
    connection.abort()


@pytest.mark.parametrize("lose", [lose_cleanly, lose_by_tcp_reset], ids=["clean-close", "tcp-reset"])
async def test_unacked_deliveries_return_redelivered(broker, lose):
    queue = await broker.queue(messages=BODIES)
    consumer = await broker.connection()
    channel = await consumer.channel()
    await channel.consume(queue)
    first_deliveries = await expect_deliveries(channel, len(BODIES), "first deliveries")
    check(not any(d.redelivered for d in first_deliveries), "first deliveries are not flagged redelivered",
          expected="redelivered=false", actual=[d.redelivered for d in first_deliveries])

    await lose(consumer)

    returned = await broker.take_all(queue, expected=len(BODIES), within=timeouts.REPLY)
    check(sorted(d.body for d in returned) == sorted(BODIES), "every unacked delivery is requeued",
          expected=sorted(BODIES), actual=sorted(d.body for d in returned))
    check(all(d.redelivered for d in returned), "requeued deliveries carry redelivered=true",
          expected="redelivered=true for all", actual={d.body: d.redelivered for d in returned})
