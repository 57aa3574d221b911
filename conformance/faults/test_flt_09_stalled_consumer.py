"""FLT-09: a consumer that stops reading loses nothing. Its socket is stalled through
Toxiproxy (downstream bandwidth 0: the broker's writes back up, TCP back-pressure) while
thousands of messages are published on a direct connection; once every publish is
confirmed the stall is lifted. With automatic ack every message then arrives exactly
once and in publish order, and the connection was not dropped for being slow: the
consumer's own heartbeats kept flowing upstream, and the stall lasted only as long as
the confirmed publishing. With manual acks under the same stall the prefetch holds:
no more than prefetch-count deliveries arrive until one is acked. That case publishes
only a few times the prefetch: its held deliveries are unacked for as long as the stall
lasts, and a broker's consumer timeout (2.5 s on the suite's own nodes) may rightly end a
longer hold."""

import pytest

from amqp_conformance.amqp_faults import stall
from amqp_conformance.amqp_faults.workloads import HEARTBEAT_S, publish_confirmed
from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, Delivery, check, deliveries_until_quiet,
                                                  expect_open, message_ids, observe, rule)
from amqp_conformance.fixtures.core import timeouts

RULE = rule("FLT-09", "A consumer that stops reading loses nothing; the prefetch holds under back-pressure",
            strength=MUST, guide=CONFIRMS, section="acknowledgement-modes")

pytestmark = pytest.mark.fault
MESSAGES = 2000
PREFETCH = 10
MANUAL_ACK_MESSAGES = 5 * PREFETCH


async def stalled_consumer(broker, faults, *, no_ack: bool, prefetch: int = 0, messages: int = MESSAGES):
    """A consumer through the proxy (1 s heartbeats), its socket stalled downstream while
    `messages` are published and confirmed on a direct connection; the stall lifted.
    Returns (the queue, its channel, the ids in publish order)."""
    queue = await broker.queue()
    connection = await faults.connection(heartbeat=HEARTBEAT_S)
    channel = await connection.channel()
    if prefetch:
        await channel.qos(prefetch_count=prefetch)
    await channel.consume(queue, no_ack=no_ack)
    ids = message_ids("flt09", messages)
    async with faults.injected(stall("downstream")):
        await publish_confirmed(faults, queue, ids)
        observe("deliveries that crossed the stall", sum(isinstance(event, Delivery) for event in channel.inbox))
    return queue, channel, ids


@pytest.mark.case("auto-ack")
async def test_an_auto_ack_consumer_gets_every_message_once_in_order(broker, faults, history):
    history.fault_name = "stall-downstream, automatic ack"
    queue, channel, ids = await stalled_consumer(broker, faults, no_ack=True)
    # Each delivery awaited for the reply bound after the one before: a slow broker is not a lossy one.
    got = [d.message_id for d in await deliveries_until_quiet(channel, expected=MESSAGES, quiet=0)]
    observe("delivered after the stall", len(got))
    observe("still ready in the queue", await broker.ready_count(queue))
    check(got == ids, "after the stall every message arrives exactly once, in publish order",
          expected=f"{MESSAGES} messages, flt09-0000 .. flt09-{MESSAGES - 1:04d} in order",
          actual=f"{len(got)} messages, {len(set(got))} distinct, in order: {got == sorted(got)}")
    await expect_open(channel, "the stalled consumer's connection is not dropped for being slow")


@pytest.mark.case("manual-ack")
async def test_a_manual_ack_consumer_gets_no_more_than_its_prefetch(broker, faults, history):
    history.fault_name = "stall-downstream, manual ack"
    _, channel, ids = await stalled_consumer(broker, faults, no_ack=False, prefetch=PREFETCH,
                                             messages=MANUAL_ACK_MESSAGES)
    held = await deliveries_until_quiet(channel, expected=PREFETCH)
    check(len(held) == PREFETCH, "under the stall the prefetch holds: prefetch-count deliveries, no more",
          expected=f"{PREFETCH} deliveries, then none for {timeouts.NEGATIVE_WINDOW:.1f} s", actual=len(held))
    taken = []
    while held:  # each prefetch-full acked (the last one too: the history counts what was settled)
        taken += held
        channel.ack(held[-1].delivery_tag, multiple=True)
        held = await deliveries_until_quiet(channel, expected=PREFETCH, quiet=0) if len(taken) < len(ids) else []
    check([d.message_id for d in taken] == ids, "once acked, the rest come, a prefetch-full at a time, "
          "each once and in publish order", expected=f"{len(ids)} messages in order",
          actual=f"{len(taken)} messages: {[d.message_id for d in taken][:2 * PREFETCH]} ...")
    await expect_open(channel, "the stalled consumer's connection is not dropped for being slow")
