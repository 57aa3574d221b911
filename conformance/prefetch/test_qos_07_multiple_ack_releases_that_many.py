"""QOS-07: acknowledging (or negatively acknowledging) k deliveries at once with
multiple=true frees k prefetch slots: k more deliveries follow, and no more."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, QUEUE_TYPES, check, deliveries_until_quiet,
                                                  rule)

RULE = rule("QOS-07", "Acking or nacking k deliveries at once releases k more",
            strength=MUST, guide=CONFIRMS, section="channel-qos-prefetch")

PREFETCH = 4
SETTLED = 3  # k: settled by one multiple=true frame
READY = 12


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_settling_k_at_once_releases_k_more(broker, queue_type):
    queue = await broker.queue(queue_type, messages=[b"m%d" % n for n in range(READY)])
    async with broker.channel() as channel:
        await channel.qos(PREFETCH)
        await channel.consume(queue)
        held = await deliveries_until_quiet(channel, expected=PREFETCH, quiet=0)
        check(len(held) == PREFETCH, f"prefetch {PREFETCH} is filled first", expected=PREFETCH, actual=len(held))

        channel.ack(held[SETTLED - 1].delivery_tag, multiple=True)
        after_ack = await deliveries_until_quiet(channel, expected=SETTLED, quiet=0)
        check(len(after_ack) == SETTLED, f"a multiple-ack of {SETTLED} releases {SETTLED} more",
              expected=SETTLED, actual=len(after_ack))

        # Outstanding now: held[-1] and after_ack; the nack covers the oldest SETTLED of them.
        channel.nack(after_ack[SETTLED - 2].delivery_tag, multiple=True, requeue=False)
        after_nack = await deliveries_until_quiet(channel, expected=SETTLED)

    # One quiet window ends both phases: anything either settle let through beyond
    # k shows up here.
    check(len(after_nack) == SETTLED, f"a multiple-nack of {SETTLED} releases {SETTLED} more, and neither settle "
                                      f"let more than {PREFETCH} be unacked", expected=SETTLED, actual=len(after_nack))
