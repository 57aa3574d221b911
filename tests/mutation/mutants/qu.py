"""Mutants of the QU and RQ-10 (queues) rules of the specification."""

from __future__ import annotations

import re

from pamqp import commands as spec
from pamqp.header import ContentHeader

from tests.mutation.mutant_proxy import TO_CLIENT, Command, command
from .base import Mutant, changed, replaced

# The specification's queue-name lexicon and length (queue-name domain).
QUEUE_NAME = re.compile(r"[a-zA-Z0-9\-_.:]{0,127}")


def refused(cmd: Command, code: int, kind: type) -> bool:
    """`cmd` is the broker closing its channel with `code`, blaming a `kind` method."""
    m = cmd.method
    return (isinstance(m, spec.Channel.Close) and m.reply_code == code
            and (m.class_id, m.method_id) == (kind.index >> 16, kind.index & 0xFFFF))


def last_declared(link, channel: int) -> spec.Queue.Declare | None:
    """The last queue.declare the client sent on `channel` (kept by the mutants below)."""
    return link.state.get("declares", {}).get(channel)


def remember_declare(link, cmd: Command) -> None:
    if isinstance(cmd.method, spec.Queue.Declare):
        link.state.setdefault("declares", {})[cmd.channel] = cmd.method


class ConsumerQueues:
    """Which queue each consumer tag of a connection consumes from (basic.consume, then its consume-ok)."""

    @staticmethod
    def from_client(link, cmd: Command) -> None:
        if isinstance(cmd.method, spec.Basic.Consume):
            link.state.setdefault("consuming", {}).setdefault(cmd.channel, []).append(cmd.method.queue)

    @staticmethod
    def from_broker(link, cmd: Command) -> None:
        waiting = link.state.get("consuming", {}).get(cmd.channel)
        if isinstance(cmd.method, spec.Basic.ConsumeOk) and waiting:
            link.state.setdefault("consumer queues", {})[cmd.method.consumer_tag] = waiting.pop(0)

    @staticmethod
    def of(link, tag: str) -> str | None:
        return link.state.get("consumer queues", {}).get(tag)


class GeneratedNamesRepeat(Mutant):
    """Every server-named queue of a connection is reported under the first generated name."""

    breaks = ("QU-01",)

    def from_broker(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Queue.DeclareOk) and m.queue.startswith("amq.gen"):
            first = link.state.setdefault("first generated", m.queue)
            if m.queue != first:
                return replaced(cmd, changed(m, queue=first))
        return None


class ReservedQueueNameAccepted(Mutant):
    """A non-passive declare of a missing amq.* queue is answered declare-ok."""

    breaks = ("QU-02",)

    def from_client(self, link, cmd):
        remember_declare(link, cmd)

    def from_broker(self, link, cmd):
        declared = last_declared(link, cmd.channel)
        if refused(cmd, 403, spec.Queue.Declare) and declared is not None:
            link.hide_channel_close(cmd.channel)
            link.to_client(cmd.channel, spec.Queue.DeclareOk(queue=declared.queue, message_count=0, consumer_count=0))
            return []
        return None


class OddQueueNameRefusedWithAnotherCode(Mutant):
    """A queue name outside the specification's lexicon or length is refused with 403, not 406."""

    breaks = ("QU-03",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Queue.Declare) and not QUEUE_NAME.fullmatch(m.queue or ""):
            link.fake_channel_close(cmd.channel, 403, "ACCESS_REFUSED - odd queue name")
            return []
        return None


class PassiveDeclareCountsUnacked(Mutant):
    """declare-ok's message count includes the deliveries the connection holds unacknowledged."""

    breaks = ("QU-04",)

    def from_broker(self, link, cmd):
        m = cmd.method
        held = sum(len(state.outstanding) for state in link.tracker.channels.values())
        if isinstance(m, spec.Queue.DeclareOk) and held:
            return replaced(cmd, changed(m, message_count=m.message_count + held))
        return None


class MissingQueuePassivelyDeclared(Mutant):
    """A passive declare of a missing queue is answered declare-ok."""

    breaks = ("QU-04",)

    def from_client(self, link, cmd):
        remember_declare(link, cmd)

    def from_broker(self, link, cmd):
        declared = last_declared(link, cmd.channel)
        if refused(cmd, 404, spec.Queue.Declare) and declared is not None and declared.passive:
            link.hide_channel_close(cmd.channel)
            link.to_client(cmd.channel, spec.Queue.DeclareOk(queue=declared.queue, message_count=0, consumer_count=0))
            return []
        return None


class InequivalentRedeclareAccepted(Mutant):
    """A redeclare with other durable, exclusive, auto-delete or arguments is answered declare-ok."""

    breaks = ("QU-05",)

    def from_client(self, link, cmd):
        remember_declare(link, cmd)

    def from_broker(self, link, cmd):
        declared = last_declared(link, cmd.channel)
        if declared is not None and not declared.passive and \
                any(refused(cmd, code, spec.Queue.Declare) for code in (405, 406)):
            link.hide_channel_close(cmd.channel)
            link.to_client(cmd.channel, spec.Queue.DeclareOk(queue=declared.queue, message_count=0, consumer_count=0))
            return []
        return None


class AutoDeleteFollowsRedeclare(Mutant):
    """A redeclare that sets auto-delete on an existing explicit-delete queue makes it
    auto-delete: the proxy deletes the queue just before its last consumer's cancel."""

    breaks = ("QU-06",)

    def from_client(self, link, cmd):
        m = cmd.method
        ConsumerQueues.from_client(link, cmd)
        first = link.shared.setdefault("first auto-delete", {})
        if isinstance(m, spec.Queue.Declare) and not m.passive:
            if first.setdefault(m.queue, m.auto_delete) is False and m.auto_delete:
                link.shared.setdefault("made auto-delete", set()).add(m.queue)
        elif isinstance(m, spec.Basic.Cancel):
            queue = ConsumerQueues.of(link, m.consumer_tag)
            if queue in link.shared.get("made auto-delete", set()):
                link.swallow(TO_CLIENT, cmd.channel, spec.Queue.DeleteOk)
                return [command(cmd.channel, spec.Queue.Delete(queue=queue)), cmd]
        return None

    def from_broker(self, link, cmd):
        ConsumerQueues.from_broker(link, cmd)


class ExclusiveQueueShared(Mutant):
    """The exclusive flag of queue.declare is ignored: the queue is shared and outlives its connection."""

    breaks = ("QU-09", "QU-10")

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Queue.Declare) and cmd.method.exclusive:
            return replaced(cmd, changed(cmd.method, exclusive=False))
        return None


class AutoDeleteIgnored(Mutant):
    """The auto-delete flag of queue.declare is ignored: the queue stays after its last consumer."""

    breaks = ("QU-06", "QU-11")

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Queue.Declare) and cmd.method.auto_delete:
            return replaced(cmd, changed(cmd.method, auto_delete=False))
        return None


class PurgeTakesUnacked(Mutant):
    """queue.purge also drops the deliveries held unacknowledged: the proxy acks them first."""

    breaks = ("QU-13",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Queue.Purge):
            acks = [command(channel, spec.Basic.Ack(delivery_tag=tag))
                    for channel, state in link.tracker.channels.items() for tag in state.outstanding]
            return acks + [cmd] if acks else None
        return None


class EmptyQueueNameNotResolved(Mutant):
    """purge and delete with an empty name do not act on the channel's last declared queue."""

    breaks = ("QU-14",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, (spec.Queue.Purge, spec.Queue.Delete)) and not m.queue:
            return replaced(cmd, changed(m, queue="amqpc-no-such-queue-for-an-empty-name"))
        return None


class MissingQueuePurged(Mutant):
    """Purging a missing queue is answered purge-ok."""

    breaks = ("QU-15",)

    def from_broker(self, link, cmd):
        if refused(cmd, 404, spec.Queue.Purge):
            link.hide_channel_close(cmd.channel)
            link.to_client(cmd.channel, spec.Queue.PurgeOk(message_count=0))
            return []
        return None


class QueueIfUnusedIgnored(Mutant):
    """queue.delete ignores if-unused: a queue with consumers is deleted."""

    breaks = ("QU-16",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Queue.Delete) and cmd.method.if_unused:
            return replaced(cmd, changed(cmd.method, if_unused=False))
        return None


class IfEmptyIgnored(Mutant):
    """queue.delete ignores if-empty: a queue holding messages is deleted."""

    breaks = ("QU-17",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Queue.Delete) and cmd.method.if_empty:
            return replaced(cmd, changed(cmd.method, if_empty=False))
        return None


class DeleteCountsNothing(Mutant):
    """delete-ok reports 0 messages whatever the queue held."""

    breaks = ("QU-18",)

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, spec.Queue.DeleteOk) and cmd.method.message_count:
            return replaced(cmd, changed(cmd.method, message_count=0))
        return None


class CancelAfterQueueDeletedRefused(Mutant):
    """Cancelling a consumer whose queue was deleted closes the channel with 404."""

    breaks = ("QU-19",)

    def from_client(self, link, cmd):
        m = cmd.method
        ConsumerQueues.from_client(link, cmd)
        if isinstance(m, spec.Queue.Delete):
            link.shared.setdefault("deleted queues", set()).add(m.queue)
        elif isinstance(m, spec.Basic.Cancel) and \
                ConsumerQueues.of(link, m.consumer_tag) in link.shared.get("deleted queues", set()):
            link.fake_channel_close(cmd.channel, 404, f"NOT_FOUND - no consumer '{m.consumer_tag}'")
            return []
        return None

    def from_broker(self, link, cmd):
        ConsumerQueues.from_broker(link, cmd)


class HighPrioritiesFlattened(Mutant):
    """Priorities 5-9 are treated as 0: the two bands 0-4 and 5-9 are not kept apart."""

    breaks = ("QU-21",)

    def from_client(self, link, cmd):
        header = cmd.header
        if isinstance(cmd.method, spec.Basic.Publish) and header is not None and (header.properties.priority or 0) >= 5:
            properties = changed(header.properties, priority=0)
            return [Command(cmd.channel, cmd.method, ContentHeader(header.weight, header.body_size, properties),
                            cmd.bodies)]
        return None


class TransientOvertakesPersistent(Mutant):
    """A transient message is queued behind the persistent one published after it: the proxy
    holds each transient publish until the channel's next persistent one (or any other method)."""

    breaks = ("QU-22",)

    def from_client(self, link, cmd):
        held = link.state.setdefault("held transient", {}).setdefault(cmd.channel, [])
        # Confirm and tx channels are left alone: there the reorder would break the
        # confirms' sequence numbers (PC rules), not only the queue's order.
        if isinstance(cmd.method, spec.Basic.Publish) and cmd.header is not None and \
                link.tracker.channel(cmd.channel).mode is None:
            if cmd.header.properties.delivery_mode != 2:
                held.append(cmd)
                return []
            released, held[:] = list(held), []
            return [cmd] + released
        if held:
            released, held[:] = list(held), []
            return released + [cmd]
        return None


class OverflowDiscardsPersistent(Mutant):
    """A queue that has taken more persistent messages than its broker keeps in memory drops
    some of them and confirms them all the same: once a channel has published OVERFLOW_OCTETS
    of persistent bodies, one persistent publish in DISCARD_EVERY is routed to no queue (the
    broker acks an unroutable publish). Judged only on the worker's own node, whose memory
    limit QU-23 lowers: tests/mutation/test_node_mutants.py."""

    breaks = ("QU-23",)
    OVERFLOW_OCTETS = 16 * 2**20
    DISCARD_EVERY = 8

    def from_client(self, link, cmd):
        header = cmd.header
        if not (isinstance(cmd.method, spec.Basic.Publish) and header is not None
                and header.properties.delivery_mode == 2):
            return None
        octets = link.state.setdefault("persistent octets", {})
        octets[cmd.channel] = octets.get(cmd.channel, 0) + header.body_size
        if octets[cmd.channel] <= self.OVERFLOW_OCTETS:
            return None
        over = link.state.setdefault("persistent publishes over", {})
        over[cmd.channel] = over.get(cmd.channel, 0) + 1
        if over[cmd.channel] % self.DISCARD_EVERY:
            return None
        return replaced(cmd, changed(cmd.method, exchange="", routing_key="amqpc-mutant-discarded-overflow"))


MUTANTS: tuple[type[Mutant], ...] = (
    GeneratedNamesRepeat, ReservedQueueNameAccepted, OddQueueNameRefusedWithAnotherCode, PassiveDeclareCountsUnacked,
    MissingQueuePassivelyDeclared, InequivalentRedeclareAccepted, AutoDeleteFollowsRedeclare, ExclusiveQueueShared,
    AutoDeleteIgnored, PurgeTakesUnacked, EmptyQueueNameNotResolved, MissingQueuePurged, QueueIfUnusedIgnored,
    IfEmptyIgnored, DeleteCountsNothing, CancelAfterQueueDeletedRefused, HighPrioritiesFlattened,
    TransientOvertakesPersistent, OverflowDiscardsPersistent,
)
# The MUST rules of this area no proxy can break, and why.
NOT_EXPRESSIBLE: dict[str, str] = {
    "QU-07": ("its case restarts the broker (needs=restart): through the mutant proxy the suite has a URL target it "
              "cannot restart, where the case is unsupported; a node mutant that loses durable queues is not written"),
    "QU-08": ("its case restarts the broker (needs=restart): through the mutant proxy the suite has a URL target it "
              "cannot restart, where the case is unsupported; a node mutant that keeps transient queues is not "
              "written"),
}
