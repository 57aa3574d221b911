"""QOS-01: with a prefetch count of N, a consumer has at most N unacknowledged
deliveries outstanding; the broker holds the rest back until an ack frees a slot."""

import pytest

from fixtures import CONFIRMS, MUST, QUEUE_TYPES, check, deliveries_until_quiet, rule

RULE = rule("QOS-01", "With prefetch N at most N deliveries are unacked; each ack lets one more through",
            strength=MUST, guide=CONFIRMS, section="channel-qos-prefetch")

PREFETCH = 3
READY = 10


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_prefetch_holds_deliveries_until_an_ack(broker, queue_type):
    queue = await broker.queue(queue_type, messages=[b"m%d" % n for n in range(READY)])
    async with broker.channel() as channel:
        await channel.qos(PREFETCH)
        await channel.consume(queue)
        first = await deliveries_until_quiet(channel, expected=PREFETCH, quiet=0)
        check(len(first) == PREFETCH, f"with prefetch {PREFETCH} and {READY} ready, {PREFETCH} are delivered",
              expected=PREFETCH, actual=len(first))

        channel.ack(first[0].delivery_tag)
        after_one_ack = await deliveries_until_quiet(channel, expected=1)

    # One quiet window judges both phases: a broker that sent more than N before the
    # ack, or more than one after it, shows it here.
    check(len(after_one_ack) == 1, f"with prefetch {PREFETCH}, one ack lets exactly one more delivery through",
          expected=f"1 delivery after the ack ({PREFETCH} unacked)",
          actual=f"{len(after_one_ack)} ({PREFETCH - 1 + len(after_one_ack)} unacked)")
