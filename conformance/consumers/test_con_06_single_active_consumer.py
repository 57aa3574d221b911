"""CON-06: on a queue declared with x-single-active-consumer only one consumer receives
at a time; when it is cancelled, or its channel closes, another registered consumer takes
over. A cancelled active consumer's unacked deliveries stay ackable on its channel.

Each consumer has prefetch 1 and acks before the next delivery: a broker that spread
the messages would give the second one to the idle consumer."""

import pytest
from pamqp.commands import Basic

from fixtures import (CONSUMERS, MUST, QUEUE_TYPES, check, expect_open, expect_reply,
                      receive_one_at_a_time, require_single_active_consumer, rule, single_active_consumers,
                      who_got)

RULE = rule("CON-06", "Single active consumer: one consumer receives; another takes over on cancel or close",
            strength=MUST, guide=CONSUMERS, section="single-active-consumer")

FIRST_BATCH = [b"m1", b"m2", b"m3"]


@pytest.mark.parametrize("handover", ["cancel", "channel-close"])
@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_one_consumer_receives_and_another_takes_over(broker, queue_type, handover):
    await require_single_active_consumer(broker, queue_type)
    queue, channels, tags = await single_active_consumers(broker, queue_type)
    await broker.publish(queue, *FIRST_BATCH)
    first = await receive_one_at_a_time(channels, len(FIRST_BATCH), hold_last=True)  # m3 stays unacked
    active = first[0][0] if first else None
    check(len(first) == len(FIRST_BATCH) and all(channel is active for channel, _ in first),
          "only the single active consumer receives", expected={"one consumer": FIRST_BATCH},
          actual=who_got(first))
    standby = channels[1 - channels.index(active)]

    if handover == "cancel":
        await expect_reply(active, Basic.Cancel(consumer_tag=tags[channels.index(active)]), Basic.CancelOk,
                           "the active consumer can be cancelled")
    else:
        await active.close()  # requeues the unacked m3: it goes to the new active consumer
    await broker.publish(queue, b"m4")
    expected = [b"m4"] if handover == "cancel" else [b"m3", b"m4"]
    after = await receive_one_at_a_time([active, standby], len(expected))
    check(sorted(d.body for _, d in after) == expected and all(channel is standby for channel, _ in after),
          f"after the {handover} the other registered consumer takes over",
          expected={tags[channels.index(standby)]: expected}, actual=who_got(after))

    if handover == "cancel":
        active.ack(first[-1][1].delivery_tag)
        await expect_open(active, "the cancelled active consumer's unacked delivery stays ackable")
