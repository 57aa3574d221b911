"""QOS-08: lowering the prefetch count while more deliveries than the new value are
unacked does not take them back; the broker may briefly exceed the new limit, then
holds it as acks come in. RabbitMQ applies a per-consumer (global=false) change only to
consumers started after it, and a channel-wide (global=true) one at once; what each
scope did is recorded."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, INFO, Closed, deliveries_until_quiet,
                                                  expect_deliveries, observe, rule)

RULE = rule("QOS-08", "A prefetch lowered in flight may be exceeded briefly, then holds (recorded)",
            strength=INFO, guide=CONFIRMS, section="channel-qos-prefetch")

FIRST, LOWERED, READY = 5, 2, 20


@pytest.mark.parametrize("global_", [False, True], ids=["per-consumer", "per-channel"])
async def test_lowered_prefetch_is_eventually_held(broker, global_):
    queue = await broker.queue(messages=[b"m%d" % n for n in range(READY)])
    async with broker.channel() as channel:
        try:
            await channel.qos(FIRST, global_=global_)
        except Closed as refused:
            observe("prefetch with global=true", f"refused: {refused.reply}")
            return
        await channel.consume(queue)
        in_flight = await expect_deliveries(channel, FIRST, "deliveries filling the first prefetch")
        await channel.qos(LOWERED, global_=global_)

        # Ack all but one, one at a time: a broker enforcing the new limit sends exactly
        # LOWERED - 1 more, and only once fewer than LOWERED are unacked.
        for delivery in in_flight[:-1]:
            channel.ack(delivery.delivery_tag)
        more = await deliveries_until_quiet(channel, expected=LOWERED - 1)

    unacked_after = 1 + len(more)
    observe("unacked when the limit was lowered", f"{FIRST} (new limit {LOWERED})")
    observe("unacked once the acks were handled", unacked_after)
    observe("new limit held by the running consumer", unacked_after <= LOWERED)
