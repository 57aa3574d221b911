"""FLT-09: a consumer that stops reading loses nothing the broker had not sent. Its socket
is stalled through Toxiproxy (downstream bandwidth 0: the broker's writes back up, TCP
back-pressure) while thousands of messages are published on a direct connection; once
every publish is confirmed (or the confirms stop coming within their bound: a broker may
hold a publisher back, and owes nothing it did not confirm) the stall is lifted.

With automatic ack the guide says only that some clients apply TCP back-pressure and that
a delivery is lost if the connection closes before it arrives. So the broker may keep the
consumer or close it. While the connection lives, nothing is lost: each message arrives at
most once and in publish order (one path, AMQP 0-9-1 §4.7), or is still in the queue. If
the broker ends the connection, only the messages it had sent and not yet delivered (in
flight, right after the last one delivered) may be lost: every later one stays queued
(as RD-11 judges of a cut). The connection is held by the consumer's own heartbeats, and
the stall lasts only as long as the confirmed publishing.

With manual acks under the same stall the prefetch holds: no more than prefetch-count
deliveries arrive until one is acked. That case publishes only a few times the prefetch:
its held deliveries are unacked for as long as the stall lasts, and a broker's consumer
timeout (2.5 s on the suite's own nodes) may rightly end a longer hold.

A loaded harness is not a slow consumer: if the broker ended the consumer's connection
after the suite's own heartbeats went out late (the frames log has their send times),
the case is an error of the run, not a verdict; and a message still in the queue is
counted as such, never as lost."""

import asyncio
import time

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, Closed, ConnectionLost, Delivery, MUST, NoReply, check,
                                                  deliveries_until_quiet, drain, expect_auto_ack_accounted,
                                                  expect_open, message_ids, observe, publish_confirmed, rule,
                                                  rule_out_own_silence, stall, timeouts)

RULE = rule("FLT-09", "A consumer that stops reading loses nothing the broker had not sent; the prefetch holds "
            "under back-pressure", strength=MUST, guide=CONFIRMS, section="acknowledgement-modes",
            accepts=("automatic ack: the broker keeping the stalled consumer (then nothing lost, each message at most "
                     "once and in publish order, the rest still queued) or ending its connection (then only messages "
                     "in flight lost, every later one queued); CONFIRMS, acknowledgement modes: some clients apply "
                     "TCP back-pressure, and an automatic-ack delivery is lost if the connection closes before it "
                     "arrives. Messages left queued after the stall are recorded"))

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


async def kept_consumer(channel) -> bool:
    """Whether the broker kept the stalled consumer: then it is cancelled, and nothing is
    pushed to it after cancel-ok. False, with how it ended recorded, where the broker
    closed its channel or connection or dropped the connection."""
    try:
        await channel.cancel(CONSUMER)
        return True
    except Closed as closed:
        observe("the broker ended the stalled consumer", str(closed.reply))
    except ConnectionLost as lost:
        observe("the broker ended the stalled consumer", f"the TCP connection dropped: {lost}")
    except NoReply:
        check(False, "the stalled consumer's connection answers, or the broker ends it",
              expected="cancel-ok, or a close", actual=f"no reply within {timeouts.REPLY:.1f} s, connection open")
    return False


async def still_queued(broker, faults, queue: str, ids: list[str] | set[str], delivered: list[str]) -> list[str]:
    """The ids the queue still holds once its consumer is gone: drained on a direct
    connection, so that the message history counts them as there (never as lost) and the
    checks can say where every message is (`ids`: those it must find unless delivered)."""
    ready = await broker.ready_count(queue)
    observe("still ready in the queue", ready)
    missing = set(ids) - set(delivered)
    drained = await drain(faults, queue, expect=missing, within=timeouts.REPLY) if ready or missing else []
    return [d.message_id for d in drained]


@pytest.mark.case("auto-ack")
async def test_an_auto_ack_consumer_loses_only_what_was_in_flight(broker, faults, history):
    history.fault_name = "stall-downstream, automatic ack"
    queue, channel, ids = await stalled_consumer(broker, faults, no_ack=True,
                                                 stalled_at_least=STALLED_INTERVALS * HEARTBEAT_S)
    # Each delivery awaited for the reply bound after the one before: a slow broker is not a lossy one.
    got = await deliveries_until_quiet(channel, expected=MESSAGES, quiet=0)
    observe("delivered after the stall", len(got))
    rule_out_own_silence(channel.connection)
    kept = await kept_consumer(channel)
    rule_out_own_silence(channel.connection)
    delivered = [d.message_id for d in channel.arrivals if isinstance(d, Delivery)]
    # A publish the broker never confirmed (one held back by its flow control) it does not owe.
    confirmed = history.confirmed_ids() & set(ids)
    observe("confirmed of the published", f"{len(confirmed)} of {len(ids)}")
    queued = await still_queued(broker, faults, queue, confirmed, delivered)
    if kept:
        observe("still queued after the stall, the connection kept", len(queued))
    expect_auto_ack_accounted(ids, delivered, queued, kept=kept, confirmed=confirmed)


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
