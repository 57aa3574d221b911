"""QOS-07: acknowledging (or negatively acknowledging) k deliveries at once with
multiple=true frees k prefetch slots: k more deliveries follow, and no more."""

import pytest

from fixtures import CONFIRMS, MUST, QUEUE_TYPES, check, deliveries_until_quiet, rule

RULE = rule("QOS-07", "Acking or nacking k deliveries at once releases k more",
            strength=MUST, guide=CONFIRMS, section="channel-qos-prefetch")

PREFETCH = 4
SETTLED = 3  # k: settled by one multiple=true frame
READY = 12

SETTLE_MANY = {
    "multiple-ack": lambda channel, tag: channel.ack(tag, multiple=True),
    "multiple-nack": lambda channel, tag: channel.nack(tag, multiple=True, requeue=False),
}


@pytest.mark.parametrize("settle", SETTLE_MANY)
@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_settling_k_at_once_releases_k_more(broker, queue_type, settle):
    queue = await broker.queue(queue_type, messages=[b"m%d" % n for n in range(READY)])
    async with broker.channel() as channel:
        await channel.qos(PREFETCH)
        await channel.consume(queue)
        held = await deliveries_until_quiet(channel, expected=PREFETCH, quiet=0)
        check(len(held) == PREFETCH, f"prefetch {PREFETCH} is filled first", expected=PREFETCH, actual=len(held))

        SETTLE_MANY[settle](channel, held[SETTLED - 1].delivery_tag)
        released = await deliveries_until_quiet(channel, expected=SETTLED)

    check(len(released) == SETTLED, f"{settle} of {SETTLED} deliveries releases {SETTLED} more, keeping "
                                    f"{PREFETCH} unacked", expected=SETTLED, actual=len(released))
