"""The steps fault tests are made of: publish messages with ids and confirms (on
amqp_conformance.fixtures.vocabulary.confirms.ConfirmLedger, the suite's one publisher), consume, ack, and drain a
queue completely on a direct connection (on amqp_conformance.fixtures.vocabulary.receiving, the suite's one
receiving vocabulary). Every wait is bounded; a connection the fault has cut ends a
step early instead of failing it (the history checker judges what happened, not the step)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Callable

from pamqp import commands as spec

from amqp_conformance.fixtures.core import timeouts
from amqp_conformance.fixtures.vocabulary.confirms import CUT, ConfirmLedger, message_ids
from amqp_conformance.fixtures.wire.frames import Command, content
from amqp_conformance.fixtures.vocabulary.receiving import drain_queue, receive
from amqp_conformance.fixtures.vocabulary.checks import check, non_strict, not_exercised, observe
from amqp_conformance.fixtures.vocabulary.ordering import handled
from amqp_conformance.fixtures.wire.dialogue import Confirm, Delivery, NoReply, WireChannel, WireConnection

from .faults import Fault, FaultInjector, down, limit_data, reset_peer, silent_peer

# How long the confirms of the messages a fault test starts from may take. Not a verdict
# bound: garagemq persists and confirms about one message per 200 ms on a loaded host
# (20 confirms in 4 s), and a shorter bound made FLT-01/FLT-03 fail their precondition in
# one run and pass in the next.
SETTLE_REPLIES = 5  # times timeouts.REPLY (read when used: --reply-timeout sets it)


def publish(channel: WireChannel, queue: str, ids: list[str], **kw) -> list[str]:
    """Publish one message per id on a channel whose confirms a history records (the CLU
    rules): ConfirmLedger.send_ids without a ledger of the caller's own."""
    return ConfirmLedger().send_ids(channel, queue, ids, **kw)


async def confirms(channel: WireChannel, wanted: set[int], *, within: float,
                   covered: set[int] | None = None) -> set[int]:
    """Take confirms until every sequence number in `wanted` is covered, `within` passes
    or the connection is cut; returns the numbers covered (the history has the details).
    The CLU rules judge on the history, so only coverage matters here."""
    covered = set() if covered is None else covered
    deadline = time.monotonic() + within
    while not wanted <= covered:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        try:
            confirm = await channel.expect(Confirm, timeout=remaining, waiting_for="publisher confirms")
        except (NoReply, *CUT):
            break
        covered.update(range(1, confirm.delivery_tag + 1) if confirm.multiple else [confirm.delivery_tag])
    return covered


# Pacing between two attempts of publish_until_acked (not a wait for anything).
RETRY_PACE_S = 0.5


async def publish_until_acked(open_channel: Callable, queue: str, prefix: str, count: int, *, within: float,
                              acked_so_far: Callable[[], set[str]]) -> set[str]:
    """Publish `count` messages with ids on a fresh confirm channel (`await open_channel()`),
    and again, with new ids on a new channel, while the broker nacks every one, until
    some are acked or `within` passes; returns the ids acked (`acked_so_far()`, the
    history's). A replicated queue that has just changed leader may nack for a while
    (RabbitMQ 3.10.8 after a 5 s election: every publish to the majority nacked) before
    it takes publishes again; a test that needs confirmed messages starts from these."""
    deadline, attempt = time.monotonic() + within, 0
    while True:
        attempt += 1
        channel = await open_channel()
        ids = message_ids(f"{prefix}-a{attempt}", count)
        publish(channel, queue, ids)
        await confirms(channel, set(range(1, count + 1)), within=max(0.1, deadline - time.monotonic()))
        acked = set(ids) & acked_so_far()
        if acked or time.monotonic() + RETRY_PACE_S >= deadline:
            return acked
        await asyncio.sleep(RETRY_PACE_S)


# Messages published (and their confirms taken) between two turns of the event loop. The
# publisher shares its process with the consumer under test, whose heartbeats go out only
# when the loop turns: 2000 publishes, then their confirms, taken in one go kept the loop
# busy for seconds on a loaded 2-core host, and RabbitMQ rightly closed FLT-09's consumer
# for missed heartbeats ("missed heartbeats from client, timeout: 1s").
PUBLISH_SLICE = 100


async def publish_confirmed(faults: FaultInjector, queue: str, ids: list[str], **kw) -> None:
    """Publish on a direct confirm channel and wait for every confirm (bounded: a fault
    held meanwhile lasts no longer): the messages a consumer-side fault test starts from.
    A slice at a time, so the test's other connections keep their heartbeats."""
    connection = await faults.direct()
    channel = await connection.channel()
    await channel.confirm_select()
    ledger = ConfirmLedger()
    deadline = time.monotonic() + timeouts.REPLY * SETTLE_REPLIES
    for start in range(0, len(ids), PUBLISH_SLICE):
        ledger.send_ids(channel, queue, ids[start:start + PUBLISH_SLICE], **kw)
        await ledger.wait(channel, within=max(0.0, deadline - time.monotonic()), until_cut=True)
        await asyncio.sleep(0)  # the loop turns even when every confirm was already in
    await connection.close()


# -- the suite's own punctuality on a connection with heartbeats ------------------------------
# AMQP 0-9-1 §4.2.7: a peer may close a connection it has heard nothing from for two
# heartbeat intervals. The suite writes a heartbeat every half interval, so only a late
# harness falls silent that long. A close that follows a silence of the suite's own of
# OWN_SILENCE_LIMIT intervals or more (two, less half an interval for the last write to
# reach the broker) is the harness's doing: the case reports the run, never the broker.
OWN_SILENCE_LIMIT = 1.5


class HarnessSilent(RuntimeError):
    """The suite itself fell silent on a connection with heartbeats long enough for the
    broker to close it rightly: an error of the run, not a verdict on the broker."""


def own_writes(connection: WireConnection) -> list[float]:
    """When the client wrote to `connection` after the handshake (frames and heartbeats):
    the times the broker could have heard from it."""
    return sorted([at for at, channel, _ in connection.sent if channel >= 0] + connection.heartbeats_sent)


def ended_at(connection: WireConnection) -> float | None:
    """When the broker ended `connection` (its connection.close, or the TCP connection
    closed under the client), from the frames received; None while it has not."""
    for at, channel, data in connection.received:
        if channel < 0 or (channel == 0 and data[:1] == b"\x01" and data[7:11] == CONNECTION_CLOSE):
            return at
    return None


CONNECTION_CLOSE = bytes([0, 10, 0, 50])  # class 10 (connection), method 50 (close)


def own_silence(connection: WireConnection, until: float | None = None) -> float:
    """The longest time the client wrote nothing to `connection`, from its first write
    after the handshake until `until` (default: the broker's end of it, or now)."""
    until = until or ended_at(connection) or time.monotonic()
    writes = [at for at in own_writes(connection) if at <= until] + [until]
    return max((later - earlier for earlier, later in zip(writes, writes[1:])), default=0.0)


def last_write(connection: WireConnection, *, before: float) -> float:
    """When the client last wrote to `connection` (a frame or a heartbeat) up to `before`."""
    return max((at for at in own_writes(connection) if at <= before), default=before)


def rule_out_own_silence(connection: WireConnection, *, ended_before: float | None = None) -> None:
    """If the broker ended a connection with heartbeats (before `ended_before`, when
    given: later, the test's own fault ended it) after the suite itself fell silent on it
    for OWN_SILENCE_LIMIT intervals or more, raise HarnessSilent: the close was the
    broker's right. Otherwise nothing (the caller judges the broker)."""
    end = ended_at(connection)
    if not connection.heartbeat or end is None or (ended_before is not None and end >= ended_before):
        return
    silence = own_silence(connection)
    observe("the suite's longest silence on the heartbeat connection", f"{silence:.2f} s "
            f"(heartbeat {connection.heartbeat} s)")
    if silence >= OWN_SILENCE_LIMIT * connection.heartbeat:
        raise HarnessSilent(f"the broker ended a connection with {connection.heartbeat} s heartbeats after the suite "
                            f"itself wrote nothing on it for {silence:.2f} s (AMQP 0-9-1 §4.2.7 allows a close after "
                            f"two intervals): the harness ran late, the broker did what it should")


async def drain(faults: FaultInjector, queue: str, *, expect: set[str], within: float) -> list[Delivery]:
    """Consume (automatic ack) on a direct connection until every id in `expect` has come
    and the queue is empty, or `within` passes: the complete drain the checker needs."""
    return await drain_queue(faults.broker, faults.history, queue, expect=expect, within=within)


# -- a consumer cut off by a fault (RD-02 through faults, FLT-03) ----------------------------------
HEARTBEAT_S = 1  # fault tests negotiate 1 s heartbeats: RabbitMQ declares a silent peer dead in 2-3 s
# A silent peer: AMQP 0-9-1 §4.2.7 says a peer should close the connection after two
# heartbeat intervals without traffic; RabbitMQ checks once an interval (closes between
# 2H and 3H), Qpid at 2H, garagemq at 3H. Measured from the client's last write before the
# fault (a late harness only moves that write earlier), a close within [2H - H/2, 3H + 2 s]
# is on time (2 s for timers on a loaded host: RabbitMQ 3.10.8 closes at 3.0 s here);
# outside it is a SHOULD finding (non-strict) of its own. Loss is judged only once the broker has closed the connection, waited for up
# to SILENCE_BOUND_S: slow detection is not loss.
ON_TIME_CLOSE_S = (1.5 * HEARTBEAT_S, 3 * HEARTBEAT_S + 2.0)
SILENCE_BOUND_S = 20 * HEARTBEAT_S
CUT_BODY = 4000  # big enough that a computed cut point lands well inside a body frame


def delivery_cut_bytes(queue: str, consumer_tag: str, ids: list[str], whole: int) -> int:
    """Bytes from consume-ok up to the middle of the body of delivery number `whole + 1`:
    a downstream limit_data of this size cuts that delivery mid-frame."""
    total = len(Command(1, spec.Basic.ConsumeOk(consumer_tag=consumer_tag)).encode())
    for tag, message_id in enumerate(ids[:whole + 1], 1):
        message = content(1, spec.Basic.Deliver(consumer_tag=consumer_tag, delivery_tag=tag, redelivered=False,
                                                exchange="", routing_key=queue), b"x" * CUT_BODY,
                          spec.Basic.Properties(message_id=message_id, delivery_mode=2), frame_max=CUT_BODY + 8)
        total += len(message.encode()) if tag <= whole else \
            len(Command(1, message.method, message.header).encode()) + 8 + CUT_BODY // 2
    return total


@dataclass(frozen=True)
class ConsumerCut:
    """How a consumer is cut, and within how long the broker must have noticed."""

    name: str
    fault: Callable[[str, list[str]], Fault]  # (queue, ids) -> the fault
    window_s: float  # expected detection window, plus the time to requeue and redeliver
    # When the fault starts: "after-deliveries" (the consumer holds them), "before-consume"
    # (limit_data counts from before the deliveries), "before-deliveries" (the broker stops
    # hearing the consumer, then delivers to it: see silent-peer).
    start: str = "after-deliveries"
    # Only the broker can end the connection (the client still hears it): the drain waits
    # for that close (up to SILENCE_BOUND_S), and its latency is judged against the spec.
    broker_closes: bool = False


CONSUMER_CUTS = {
    # RST at the broker's next heartbeat (every 0.5 s): noticed at once.
    "reset-peer": ConsumerCut("reset-peer", lambda q, ids: reset_peer("downstream"), 3.0),
    # FIN on both sides at once.
    "down": ConsumerCut("down", lambda q, ids: down(), 3.0),
    # The consumer falls silent (nothing it sends reaches the broker, the TCP connection
    # stays open): only the broker's heartbeat monitor can tell, 2-3 intervals (1 s) after
    # the last byte. The deliveries are made after the silence starts so that the broker's
    # consumer timeout (2.5 s on the managed node, counted from each delivery) cannot
    # requeue them first: what is measured is the heartbeat.
    "silent-peer": ConsumerCut("silent-peer", lambda q, ids: silent_peer("upstream"), 3 * HEARTBEAT_S + 2.0,
                               start="before-deliveries", broker_closes=True),
    # The third delivery is cut inside its body frame; the proxy closes the connection.
    "limit-data-mid-delivery": ConsumerCut(
        "limit-data-mid-delivery",
        lambda q, ids: limit_data(delivery_cut_bytes(q, "cut-consumer", ids, whole=2), "downstream"),
        3.0, start="before-consume"),
}


@dataclass
class CutOutcome:
    seen: list[Delivery]  # what the cut consumer received in full
    acked: list[str]  # ids it acked (with a barrier: the broker has the acks)
    returned: list[Delivery]  # what a direct consumer got after the cut
    closed_after: float | None = None  # broker_closes: seconds from the client's last write to the broker's close


async def cut_consumer(faults: FaultInjector, queue: str, ids: list[str], cut: ConsumerCut, *,
                       acks: int = 0) -> CutOutcome:
    """Publish `ids` (confirmed), let a consumer behind the proxy receive them and ack
    the first `acks` (only when the cut comes after the deliveries), cut it, then drain
    the queue directly."""
    fault = cut.fault(queue, ids)
    await faults.prepare(fault)
    if cut.start != "before-deliveries":
        await publish_confirmed(faults, queue, ids, body_size=CUT_BODY)
    consumer = await faults.connection(heartbeat=HEARTBEAT_S)
    channel = await consumer.channel()
    if cut.start == "before-consume":
        await faults.apply(fault)
    await channel.consume(queue, consumer_tag="cut-consumer")
    applied_at = time.monotonic()
    if cut.start == "before-deliveries":
        await faults.apply(fault)
        await publish_confirmed(faults, queue, ids, body_size=CUT_BODY)
    seen = await receive(channel, len(ids))
    acked = []
    if cut.start == "after-deliveries":
        for delivery in seen[:acks]:
            channel.ack(delivery.delivery_tag)
            acked.append(delivery.message_id)
        if acked:
            await handled(channel)  # the broker has processed the acks
        applied_at = time.monotonic()
        await faults.apply(fault)
    closed_after, window = None, cut.window_s
    if cut.broker_closes:
        # The broker's silence began at the client's last write before the fault, however
        # late the harness wrote it: a close is timed from there, never from the fault alone.
        heard_last = last_write(consumer, before=applied_at)
        if await consumer.ended(within=SILENCE_BOUND_S - (time.monotonic() - applied_at)):
            closed_after = (ended_at(consumer) or time.monotonic()) - heard_last
            observe("the client's last write before the fault", f"{applied_at - heard_last:.2f} s before it")
        window = timeouts.REPLY  # the broker has closed (or had its bound): requeueing is prompt
        report_close_latency(closed_after)
    # The detection window is what the broker is expected to take; the drain waits at
    # least the reply bound too (which grows with the harness's measured lag).
    returned = await drain(faults, queue, expect=set(ids) - set(acked), within=max(window, timeouts.REPLY))
    await faults.remove(fault)
    rule_out_own_silence(consumer, ended_before=applied_at)
    return CutOutcome(seen, acked, returned, closed_after)


def expect_deliveries_before_the_cut(outcome: CutOutcome, cut: ConsumerCut, requirement: str, *,
                                     unexercised: str) -> None:
    """The cut consumer received deliveries before the cut (`requirement`), or, for a cut
    counted in bytes (delivery_cut_bytes assumes one body frame per message), a broker that
    frames content in more frames (allowed) spent those bytes before the first delivery was
    whole: then what needs a seen delivery (`unexercised`) is recorded "not exercised" and
    the caller still judges requeue and loss."""
    if not outcome.seen and cut.start == "before-consume":
        not_exercised(f"{unexercised}: the cut came before the first whole delivery "
                      "(the broker frames content with more overhead than the computed cut point)")
    else:
        check(bool(outcome.seen), requirement, expected="at least one", actual="none")


def report_close_latency(closed_after: float | None) -> None:
    """The broker's close of a silent connection, against AMQP 0-9-1 §4.2.7 (a peer
    should close after two heartbeat intervals without traffic): recorded, and a
    non-strict finding when outside ON_TIME_CLOSE_S."""
    low, high = ON_TIME_CLOSE_S
    spec_says = (f"heartbeat {HEARTBEAT_S} s: AMQP 0-9-1 §4.2.7 says close after two missed heartbeats "
                 f"({2 * HEARTBEAT_S} s); on time is {low:.1f}-{high:.1f} s after the client's last write")
    if closed_after is None:
        observe("silent peer closed by the broker", f"not within {SILENCE_BOUND_S} s ({spec_says})")
        non_strict(f"the broker did not close a silent connection within {SILENCE_BOUND_S} s ({spec_says})")
        return
    observe("silent peer closed by the broker", f"after {closed_after:.2f} s ({spec_says})")
    if closed_after < low:
        non_strict(f"the broker closed a silent connection after {closed_after:.2f} s, before two heartbeat "
                   f"intervals ({spec_says})")
    elif closed_after > high:
        non_strict(f"the broker closed a silent connection only after {closed_after:.2f} s ({spec_says}); "
                   "late detection, judged apart from loss")


# -- a publisher hit by a fault with confirms outstanding (FLT-01, FLT-02, FLT-06) ------------------
FAULT_WINDOW_S = 1.0  # how long confirms are awaited while the fault holds (a negative window)


def publish_cut_bytes(queue: str, ids: list[str], whole: int, body_size: int) -> int:
    """Bytes from the first publish up to the middle of the body of publish `whole + 1`:
    an upstream limit_data of this size cuts that publish mid-frame."""
    total = 0
    for n, message_id in enumerate(ids[:whole + 1]):
        message = content(1, spec.Basic.Publish(exchange="", routing_key=queue), b"x" * body_size,
                          spec.Basic.Properties(message_id=message_id, delivery_mode=2), frame_max=body_size + 8)
        total += len(message.encode()) if n < whole else \
            len(Command(1, message.method, message.header).encode()) + 8 + body_size // 2
    return total


@dataclass
class PublishOutcome:
    before: list[str]  # published and confirmed before the fault
    during: list[str]  # published while the fault held
    quiet_while_faulted: bool  # no confirm for `during` arrived while the fault held
    drained: list[Delivery]


async def publish_through_fault(faults: FaultInjector, queue: str, fault: Fault | Callable[[list[str]], Fault], *,
                                before: int = 20, during: int = 20, body_size: int = 64,
                                prefix: str = "m") -> PublishOutcome:
    """A publisher behind the proxy in confirm mode: `before` messages confirmed, then the
    fault, `during` more published into it, confirms awaited for FAULT_WINDOW_S, the fault
    removed, late confirms collected, and the queue drained directly."""
    first, second = message_ids(prefix, before), message_ids(prefix, during, start=before)
    if callable(fault):
        fault = fault(second)
    await faults.prepare(fault)
    connection = await faults.connection(heartbeat=HEARTBEAT_S)
    channel = await connection.channel()
    await channel.confirm_select()
    ledger = ConfirmLedger()
    ledger.send_ids(channel, queue, first, body_size=body_size)
    await ledger.wait(channel, within=timeouts.REPLY * SETTLE_REPLIES, until_cut=True)
    applied_at = time.monotonic()
    await faults.apply(fault)
    already = len(ledger.published)
    ledger.send_ids(channel, queue, second, body_size=body_size)
    later = ledger.published[already:]
    await ledger.wait(channel, later, within=FAULT_WINDOW_S, until_cut=True)
    quiet = not any(seq in ledger.resolution for seq in later)
    await faults.remove(fault)
    await ledger.wait(channel, later, within=timeouts.REPLY, until_cut=True)
    drained = await drain(faults, queue, expect=faults.history.confirmed_ids(), within=timeouts.REPLY)
    rule_out_own_silence(connection, ended_before=applied_at)
    return PublishOutcome(first, second, quiet, drained)
