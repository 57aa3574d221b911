"""Mutants of the RD rules (redelivery and automatic requeue)."""

from __future__ import annotations

from pamqp import commands as spec

from tests.mutation.mutant_proxy import TO_BROKER, Link, command
from .base import Mutant, changed, replaced, is_multiple, SETTLES


def ack_everything_outstanding(link: Link, channels=None) -> None:
    """Settle every unacked delivery at the broker, as if the client had acked them."""
    for number, state in link.tracker.channels.items():
        if (channels is None or number in channels) and state.outstanding and number:
            link.to_broker(number, spec.Basic.Ack(delivery_tag=0, multiple=True))


class ClosedChannelLosesUnacked(Mutant):
    """Closing a channel discards its unacked deliveries instead of requeueing them."""

    breaks = ("RD-01",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Channel.Close):
            ack_everything_outstanding(link, {cmd.channel})
        return None


class LostConnectionLosesUnacked(Mutant):
    """A connection that closes or drops discards its unacked deliveries."""

    breaks = ("RD-02", "FLT-03")

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Connection.Close) and not link.state.get("acked all"):
            link.state["acked all"] = True
            ack_everything_outstanding(link)
        return None

    async def on_eof(self, link, direction):
        if direction == TO_BROKER and not link.state.get("acked all"):
            link.state["acked all"] = True
            ack_everything_outstanding(link)


class ChannelErrorLosesUnacked(Mutant):
    """A channel closed by a protocol error discards its unacked deliveries: the proxy
    acks them just before the frame that will make the broker close the channel."""

    breaks = ("RD-03",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, SETTLES) and not (m.delivery_tag == 0 and is_multiple(m)):
            if m.delivery_tag not in link.tracker.channel(cmd.channel).outstanding:
                ack_everything_outstanding(link, {cmd.channel})
        return None


class ClearRedelivered(Mutant):
    """Every delivery claims to be a first delivery (redelivered=false)."""

    breaks = ("RQ-01", "RD-01", "RD-02", "RD-03", "RD-06", "RD-09", "CON-10", "FLT-03", "FLT-04")

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, (spec.Basic.Deliver, spec.Basic.GetOk)) and cmd.method.redelivered:
            return replaced(cmd, changed(cmd.method, redelivered=False))
        return None


class AlwaysRedelivered(Mutant):
    """Every delivery carries redelivered=true, first deliveries too."""

    breaks = ("RD-04",)

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, (spec.Basic.Deliver, spec.Basic.GetOk)) and not cmd.method.redelivered:
            return replaced(cmd, changed(cmd.method, redelivered=True))
        return None


class AckRequeues(Mutant):
    """A single ack puts the message back in the queue instead of settling it (the tag
    is gone either way, so a second ack is still an unknown tag)."""

    breaks = ("RD-05",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Basic.Ack) and not m.multiple and m.delivery_tag in link.tracker.channel(cmd.channel).outstanding:
            return replaced(cmd, spec.Basic.Nack(delivery_tag=m.delivery_tag, multiple=False, requeue=True))
        return None


class RecoverDoesNothing(Mutant):
    """basic.recover(requeue=true) is answered recover-ok and redelivers nothing."""

    breaks = ("RD-06",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Recover) and cmd.method.requeue:
            link.to_client(cmd.channel, spec.Basic.RecoverOk())
            return []
        return None


class AutoAckIgnored(Mutant):
    """Automatic-ack consumers get manual-ack deliveries: they come back after a close."""

    breaks = ("RD-08",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Consume) and cmd.method.no_ack:
            return replaced(cmd, changed(cmd.method, no_ack=False))
        return None


class AutoAckRequeuedOnCut(Mutant):
    """Automatic-ack consumers get manual-ack deliveries, which the proxy settles at the
    broker before a clean close or a recover (RD-08 holds) but not when the TCP connection
    is cut: the broker then requeues them, and they are redelivered to the next consumer."""

    breaks = ("RD-11",)

    def from_client(self, link, cmd):
        m, made_manual = cmd.method, link.state.setdefault("made manual", set())
        if isinstance(m, spec.Basic.Consume) and m.no_ack:
            made_manual.add(cmd.channel)
            return replaced(cmd, changed(m, no_ack=False))
        closing = made_manual if isinstance(m, spec.Connection.Close) else \
            made_manual & {cmd.channel} if isinstance(m, (spec.Channel.Close, spec.Basic.Recover)) else set()
        for channel in sorted(closing):
            link.to_broker(channel, spec.Basic.Ack(delivery_tag=0, multiple=True))
        return None


class RedeliveryOnlyToFirstConsumer(Mutant):
    """A redelivered message is withheld from every consumer but the one it first went to."""

    breaks = ("RD-09",)

    def from_broker(self, link, cmd):
        m = cmd.method
        if not isinstance(m, spec.Basic.Deliver):
            return None
        first = link.shared.setdefault("first consumer", {})
        consumer = (link.id, cmd.channel, m.consumer_tag)
        if not m.redelivered:
            first.setdefault(cmd.body, consumer)
        elif first.get(cmd.body, consumer) != consumer:
            return []
        return None


class RecoverSkipsOrphanedDeliveries(Mutant):
    """basic.recover(requeue=true) requeues only the deliveries of live consumers: those of
    cancelled consumers and of basic.get are dropped (the proxy acks them first)."""

    breaks = ("RD-10",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Recover) and cmd.method.requeue:
            state = link.tracker.channel(cmd.channel)
            orphans = [t for t in state.outstanding if state.deliveries[t].consumer_tag not in state.consumers]
            return [command(cmd.channel, spec.Basic.Ack(delivery_tag=t)) for t in orphans] + [cmd]
        return None


class RecoverWithoutRequeueCrashes(Mutant):
    """basic.recover(requeue=false) closes the connection with 541 INTERNAL_ERROR, as a
    broker whose connection process crashed on it would (RabbitMQ refuses it with 540).
    RD-07 is INFO, yet a hard error fails its case (amqp_conformance.fixtures.checking.judge.hard_errors)."""

    breaks = ("RD-07",)
    hard_error = True

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Basic.Recover) and not m.requeue:
            link.escalate_to_connection_close(541, "INTERNAL_ERROR")
            return []
        return None


MUTANTS = [
    ClosedChannelLosesUnacked,
    LostConnectionLosesUnacked,
    ChannelErrorLosesUnacked,
    ClearRedelivered,
    AlwaysRedelivered,
    AckRequeues,
    RecoverDoesNothing,
    AutoAckIgnored,
    AutoAckRequeuedOnCut,
    RedeliveryOnlyToFirstConsumer,
    RecoverSkipsOrphanedDeliveries,
    RecoverWithoutRequeueCrashes,
]
