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
longer hold.

A loaded harness is not a slow consumer: if the broker ended the consumer's connection
after the suite's own heartbeats went out late (the frames log has their send times),
the case is an error of the run, not a verdict; and a message still in the queue is
counted as such, never as lost."""

import asyncio
import time

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, Delivery, MUST, check, deliveries_until_quiet, drain,
                                                  expect_open, message_ids, observe, publish_confirmed, rule,
                                                  rule_out_own_silence, stall, timeouts)

RULE = rule("FLT-09", "A consumer that stops reading loses nothing; the prefetch holds under back-pressure",
            strength=MUST, guide=CONFIRMS, section="acknowledgement-modes")

pytestmark = pytest.mark.fault
MESSAGES = 2000
PREFETCH = 10
MANUAL_ACK_MESSAGES = 5 * PREFETCH
# The consumer's heartbeat interval. The suite writes a heartbeat every half interval and a
# broker may close after two silent intervals, so only a harness 3 s late misses it (1 s
# heartbeats were missed on a loaded 2-core host, and RabbitMQ rightly closed the consumer).
HEARTBEAT_S = 2
# The automatic-ack consumer stays stalled for at least this many intervals, however fast
# the publishing: a broker that took its own backed-up writes for a dead peer has had two
# whole intervals to close the connection. (The manual-ack case is not held: its deliveries
# are unacked while it lasts, see above.)
STALLED_INTERVALS = 3
CONSUMER = "stalled-consumer"


async def stalled_consumer(broker, faults, *, no_ack: bool, prefetch: int = 0, messages: int = MESSAGES,
                           stalled_at_least: float = 0.0):
    """A consumer through the proxy (HEARTBEAT_S heartbeats), its socket stalled
    downstream while `messages` are published and confirmed on a direct connection (and
    `stalled_at_least` seconds in all); the stall lifted. Returns (the queue, its
    channel, the ids in publish order)."""
    queue = await broker.queue()
    connection = await faults.connection(heartbeat=HEARTBEAT_S)
    channel = await connection.channel()
    if prefetch:
        await channel.qos(prefetch_count=prefetch)
    await channel.consume(queue, consumer_tag=CONSUMER, no_ack=no_ack)
    ids = message_ids("flt09", messages)
    async with faults.injected(stall("downstream")):
        stalled_since = time.monotonic()
        await publish_confirmed(faults, queue, ids)
        observe("deliveries that crossed the stall", sum(isinstance(event, Delivery) for event in channel.inbox))
        await asyncio.sleep(max(0.0, stalled_at_least - (time.monotonic() - stalled_since)))  # the fault's length
        observe("stalled for", f"{time.monotonic() - stalled_since:.1f} s")
    return queue, channel, ids


async def delivered_until_cancelled(channel) -> list[str]:
    """Cancel the consumer and take what was pushed to it before cancel-ok (nothing comes
    after it): with what was taken before, every delivery it ever got, in arrival order."""
    await channel.cancel(CONSUMER)
    return [d.message_id for d in channel.take(Delivery)]


async def still_queued(broker, faults, queue: str, ids: list[str], delivered: list[str]) -> list[str]:
    """The ids the queue still holds once its consumer is gone: drained on a direct
    connection, so that the message history counts them as there (never as lost) and the
    checks can say where every message is."""
    ready = await broker.ready_count(queue)
    observe("still ready in the queue", ready)
    missing = set(ids) - set(delivered)
    drained = await drain(faults, queue, expect=missing, within=timeouts.REPLY) if ready or missing else []
    return [d.message_id for d in drained]


@pytest.mark.case("auto-ack")
async def test_an_auto_ack_consumer_gets_every_message_once_in_order(broker, faults, history):
    history.fault_name = "stall-downstream, automatic ack"
    queue, channel, ids = await stalled_consumer(broker, faults, no_ack=True,
                                                 stalled_at_least=STALLED_INTERVALS * HEARTBEAT_S)
    # Each delivery awaited for the reply bound after the one before: a slow broker is not a lossy one.
    got = [d.message_id for d in await deliveries_until_quiet(channel, expected=MESSAGES, quiet=0)]
    observe("delivered after the stall", len(got))
    rule_out_own_silence(channel.connection)
    await expect_open(channel, "the stalled consumer's connection is not dropped for being slow")
    delivered = got + await delivered_until_cancelled(channel)
    queued = await still_queued(broker, faults, queue, ids, delivered)
    accounted, seen = {*delivered, *queued}, set(delivered)
    lost = [i for i in ids if i not in accounted]
    in_order = delivered == [i for i in ids if i in seen]
    # Every message is accounted for by round trips (cancel-ok, the drain): no bound decides this one.
    check(not lost and in_order, "nothing is lost, delivered twice or out of publish order",
          expected=f"each of {MESSAGES} messages delivered once, in publish order, or still in the queue",
          actual=f"{len(delivered)} delivered ({len(set(delivered))} distinct, in publish order: {in_order}), "
                 f"{len(queued)} still in the queue, {len(lost)} lost: {lost[:5]}", timed=False)
    check(not queued, "after the stall every message arrives",
          expected="none left in the queue", actual=f"{len(queued)} still in the queue (not delivered, not lost) "
                                                  f"after {timeouts.REPLY:.1f} s without a delivery")


@pytest.mark.case("manual-ack")
async def test_a_manual_ack_consumer_gets_no_more_than_its_prefetch(broker, faults, history):
    history.fault_name = "stall-downstream, manual ack"
    _, channel, ids = await stalled_consumer(broker, faults, no_ack=False, prefetch=PREFETCH,
                                             messages=MANUAL_ACK_MESSAGES)
    held = await deliveries_until_quiet(channel, expected=PREFETCH)
    rule_out_own_silence(channel.connection)
    check(len(held) == PREFETCH, "under the stall the prefetch holds: prefetch-count deliveries, no more",
          expected=f"{PREFETCH} deliveries, then none for {timeouts.NEGATIVE_WINDOW:.1f} s", actual=len(held))
    taken = []
    while held:  # each prefetch-full acked (the last one too: the history counts what was settled)
        taken += held
        channel.ack(held[-1].delivery_tag, multiple=True)
        held = await deliveries_until_quiet(channel, expected=PREFETCH, quiet=0) if len(taken) < len(ids) else []
    rule_out_own_silence(channel.connection)
    check([d.message_id for d in taken] == ids, "once acked, the rest come, a prefetch-full at a time, "
          "each once and in publish order", expected=f"{len(ids)} messages in order",
          actual=f"{len(taken)} messages: {[d.message_id for d in taken][:2 * PREFETCH]} ...")
    await expect_open(channel, "the stalled consumer's connection is not dropped for being slow")
