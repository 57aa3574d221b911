"""QOS-12: a lowered prefetch holds. The guide allows the deliveries already in flight
to exceed a new, lower count for a while (QOS-08 records by how much); once enough of
them are settled, no more than the new count are unacked at any time.

The count lowered is the one the broker applies to the running consumers: the channel's
own (global=true, on a broker that limits the channel as a whole), or, for a
per-consumer prefetch (global=false), which RabbitMQ applies to consumers started after
basic.qos (consumer-prefetch guide), the limit of a consumer started after the change: with more ready than either count, it
receives exactly the lowered count (a consumer sent nothing holds no more than the limit,
yet proves nothing about it)."""

import pytest
from pamqp.commands import Basic

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, Closed, check, deliveries_until_quiet,
                                                  expect_deliveries, expect_released, expect_reply, observe, rule,
                                                  unsupported)

RULE = rule("QOS-12", "A lowered prefetch holds once the deliveries above it are settled",
            strength=MUST, guide=CONFIRMS, section="channel-qos-prefetch")

FIRST, LOWERED, READY = 5, 2, 12


@pytest.mark.case("per-channel")
async def test_a_lowered_channel_prefetch_holds_after_the_overshoot(broker):
    queue, other = [await broker.queue(messages=[b"m%d" % n for n in range(READY)]) for _ in range(2)]
    async with broker.channel() as channel:
        try:
            await channel.qos(FIRST, global_=True)
        except Closed as refused:
            unsupported("basic.qos(global=true) is refused", str(refused.reply))
        await channel.consume(queue)
        in_flight = await expect_deliveries(channel, FIRST, "deliveries filling the channel's prefetch")
        await channel.consume(other)  # a channel-wide limit leaves a second consumer nothing
        if beyond := await deliveries_until_quiet(channel, expected=0):
            unsupported("the broker applies no channel-wide prefetch (global=true)",
                        f"probe: with {FIRST} unacked under basic.qos({FIRST}, global=true) a second consumer on "
                        f"the channel got {len(beyond)} more")
        await channel.qos(LOWERED, global_=True)
        for delivery in in_flight[:-1]:  # down to one unacked: below the new limit
            channel.ack(delivery.delivery_tag)
        more = await deliveries_until_quiet(channel, expected=LOWERED - 1)
        observe("unacked once the acks were handled", 1 + len(more))
        check(1 + len(more) <= LOWERED, f"once the overshoot is settled, no more than the lowered {LOWERED} "
              "are unacked", expected=f"at most {LOWERED - 1} more", actual=f"{len(more)} more")
        channel.ack(0, multiple=True)
        await expect_released(channel, LOWERED, f"with nothing unacked the lowered limit lets {LOWERED} through, "
                                                "no more")


@pytest.mark.case("per-consumer")
async def test_a_lowered_consumer_prefetch_holds_for_the_next_consumer(broker):
    queue, other = [await broker.queue(messages=[b"m%d" % n for n in range(READY)]) for _ in range(2)]
    async with broker.channel() as channel:
        await channel.qos(FIRST)
        first = await channel.consume(queue)
        in_flight = await expect_deliveries(channel, FIRST, "deliveries filling the first consumer's prefetch")
        await channel.qos(LOWERED)
        for delivery in in_flight:  # the first consumer's overshoot settled
            channel.ack(delivery.delivery_tag)
        first_after = await deliveries_until_quiet(channel, expected=0)
        observe("the first consumer got after the change", f"{len(first_after)} (its own prefetch is {FIRST})")
        # The first consumer gone and nothing unacked: under a channel-wide count as under a
        # per-consumer one, the next consumer alone meets the lowered limit.
        await expect_reply(channel, Basic.Cancel(consumer_tag=first), Basic.CancelOk, "the first consumer is cancelled")
        channel.ack(0, multiple=True)
        await channel.consume(other, consumer_tag="after-the-change")
        later = await deliveries_until_quiet(channel, expected=LOWERED)
    started_later = [d for d in later if d.consumer_tag == "after-the-change"]
    check(len(started_later) == LOWERED, f"a consumer started after lowering the prefetch to {LOWERED}, with "
          f"{READY} ready, holds exactly {LOWERED} unacked: the lowered limit, neither more nor nothing",
          expected=f"{LOWERED} deliveries, then quiet", actual=len(started_later))
