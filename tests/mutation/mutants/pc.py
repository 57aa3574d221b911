"""Mutants of the PC rules (publisher confirms)."""

from __future__ import annotations

import asyncio

from pamqp import commands as spec
from pamqp.header import ContentHeader

from tests.mutation.mutant_proxy import TO_BROKER, TO_CLIENT, Command, Link, command
from .base import Mutant, changed, replaced, CONFIRMS


class AnswersNowaitConfirmSelect(Mutant):
    """confirm.select with no-wait is answered with select-ok anyway."""

    breaks = ("PC-01",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Confirm.Select) and cmd.method.nowait:
            return replaced(cmd, changed(cmd.method, nowait=False))
        return None


class ConfirmMutant(Mutant):
    """Base: rewrites the broker's confirms (basic.ack/nack on a channel in confirm mode)."""

    def confirm(self, link: Link, cmd: Command) -> list[Command] | None:
        raise NotImplementedError

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, CONFIRMS) and link.tracker.channel(cmd.channel).mode == "confirm":
            return self.confirm(link, cmd)
        return None


class ShiftConfirmTags(ConfirmMutant):
    """Confirms carry the publish sequence number plus one."""

    breaks = ("PC-02", "PC-04", "PC-05")

    def confirm(self, link, cmd):
        return replaced(cmd, changed(cmd.method, delivery_tag=cmd.method.delivery_tag + 1))


class CountsPublishesBeforeSelect(ConfirmMutant):
    """Publishes made before confirm.select shift the confirm sequence."""

    breaks = ("PC-03",)

    def confirm(self, link, cmd):
        before = link.tracker.channel(cmd.channel).published_before_confirm
        return replaced(cmd, changed(cmd.method, delivery_tag=cmd.method.delivery_tag + before)) if before else None


class DuplicateConfirms(ConfirmMutant):
    """Every publisher confirm is sent twice."""

    breaks = ("PC-04", "PC-05", "FLT-02", "PC-18")

    def confirm(self, link, cmd):
        return [cmd, cmd]


class StaleMultipleConfirm(ConfirmMutant):
    """After each confirm for N, a multiple=true ack for N-1 follows: a multiple range that
    covers no outstanding number and reaches below the watermark."""

    breaks = ("PC-05",)

    def confirm(self, link, cmd):
        tag = cmd.method.delivery_tag
        if tag < 2:
            return None
        return [cmd, command(cmd.channel, spec.Basic.Ack(delivery_tag=tag - 1, multiple=True))]


class ReorderConfirms(ConfirmMutant):
    """Confirms are held for 50 ms and released newest first, multiple=true ranges split
    into single confirms: each number is still resolved once, in reverse order (SHOULD:
    non-strict)."""

    breaks = ("PC-06",)
    hold_s = 0.05

    def confirm(self, link, cmd):
        m, state = cmd.method, link.tracker.channel(cmd.channel)
        numbers = [s for s in state.unresolved if s <= m.delivery_tag] if m.multiple else [m.delivery_tag]
        kind = type(m)
        pending = link.state.setdefault(("held", cmd.channel), [])
        if not pending:
            asyncio.get_running_loop().call_later(self.hold_s, self._flush, link, cmd.channel)
        pending.extend(command(cmd.channel, kind(delivery_tag=n, multiple=False)) for n in numbers)
        return []

    @staticmethod
    def _flush(link, channel):
        for held in reversed(link.state.pop(("held", channel), [])):
            link.send(TO_CLIENT, held)


class UnroutableReturnedWithoutMandatory(Mutant):
    """In confirm mode every publish is treated as mandatory: unroutable ones come back."""

    breaks = ("PC-07",)

    def from_client(self, link, cmd):
        if (isinstance(cmd.method, spec.Basic.Publish) and not cmd.method.mandatory
                and link.tracker.channel(cmd.channel).mode == "confirm"):
            return replaced(cmd, changed(cmd.method, mandatory=True))
        return None


class ReturnAfterAck(Mutant):
    """On a confirm channel, basic.return is sent after the ack of the same message."""

    breaks = ("PC-08",)

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Return) and link.tracker.channel(cmd.channel).mode == "confirm":
            link.state.setdefault(("returns", cmd.channel), []).append(cmd)
            return []
        if isinstance(cmd.method, CONFIRMS) and link.state.get(("returns", cmd.channel)):
            return [cmd, *link.state.pop(("returns", cmd.channel))]
        return None


class ReturnsDropped(Mutant):
    """basic.return is never sent: a mandatory publish that routes nowhere is lost silently,
    in confirm mode (PC-08) as in a transaction (TX-06)."""

    breaks = ("PC-08", "TX-06")

    def from_broker(self, link, cmd):
        return [] if isinstance(cmd.method, spec.Basic.Return) else None


class NackSentAsAck(ConfirmMutant):
    """A publish the queue refused is acked instead of nacked."""

    breaks = ("PC-09",)

    def confirm(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Nack):
            return replaced(cmd, spec.Basic.Ack(delivery_tag=cmd.method.delivery_tag, multiple=cmd.method.multiple))
        return None


class PersistenceStripped(Mutant):
    """Persistent publishes are stored as transient: confirmed, then lost in a restart (of the
    node, PC-10, or of the queue's own process, PC-18)."""

    breaks = ("PC-10", "FLT-08", "CON-15", "PC-18")
    needs_restart = True

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Publish) and cmd.header and cmd.header.properties \
                and cmd.header.properties.delivery_mode == 2:
            properties = changed(cmd.header.properties, delivery_mode=1)
            return [Command(cmd.channel, cmd.method, ContentHeader(0, cmd.header.body_size, properties), cmd.bodies)]
        return None


class ConfirmsLostWhenQueueEmptied(ConfirmMutant):
    """Confirms of messages routed to a queue deleted or purged since are never sent."""

    breaks = ("PC-11",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, (spec.Queue.Delete, spec.Queue.Purge)):
            link.shared.setdefault("emptied queues", set()).add(cmd.method.queue)
        return None

    def confirm(self, link, cmd):
        routing_key = link.tracker.channel(cmd.channel).routing_keys.get(cmd.method.delivery_tag)
        return [] if routing_key in link.shared.get("emptied queues", set()) else None


class RefusalHiddenBehindExchange(ConfirmMutant):
    """A nack of a publish made through a named exchange (routed to several queues) is
    turned into an ack: one queue's refusal goes unreported. (Default-exchange publishes,
    one queue each, keep their nacks: PC-09 still holds.)"""

    breaks = ("PC-14",)

    def from_client(self, link, cmd):
        state = link.tracker.channel(cmd.channel)
        if isinstance(cmd.method, spec.Basic.Publish) and cmd.method.exchange and state.mode == "confirm":
            link.state.setdefault(("via exchange", cmd.channel), set()).add(state.next_seq)
        return None

    def confirm(self, link, cmd):
        via_exchange = link.state.get(("via exchange", cmd.channel), set())
        if isinstance(cmd.method, spec.Basic.Nack) and cmd.method.delivery_tag in via_exchange:
            return replaced(cmd, spec.Basic.Ack(delivery_tag=cmd.method.delivery_tag, multiple=cmd.method.multiple))
        return None


class RefusedMessageWithdrawnEverywhere(ConfirmMutant):
    """When one queue refuses a publish routed to several (its x-overflow is
    reject-publish), the broker nacks it and withdraws it from the queues that took it:
    the proxy takes the message back out of each of them (a basic.get with no-ack on the
    publisher's channel, its answer swallowed) before passing the nack on."""

    breaks = ("PC-14",)

    def from_client(self, link, cmd):
        m, shared = cmd.method, link.shared
        if isinstance(m, spec.Queue.Declare) and (m.arguments or {}).get("x-overflow") == "reject-publish":
            shared.setdefault("refusing queues", set()).add(m.queue)
        elif isinstance(m, spec.Queue.Bind):
            shared.setdefault("bound", {}).setdefault(m.exchange, set()).add(m.queue)
        elif isinstance(m, spec.Basic.Publish) and m.exchange and link.tracker.channel(cmd.channel).mode == "confirm":
            link.state.setdefault(("exchange of", cmd.channel), {})[link.tracker.channel(cmd.channel).next_seq] = m.exchange
        return None

    def confirm(self, link, cmd):
        exchange = link.state.get(("exchange of", cmd.channel), {}).get(cmd.method.delivery_tag)
        if isinstance(cmd.method, spec.Basic.Nack) and exchange:
            refusing = link.shared.get("refusing queues", set())
            for queue in sorted(link.shared.get("bound", {}).get(exchange, set()) - refusing):
                link.to_broker(cmd.channel, spec.Basic.Get(queue=queue, no_ack=True))
                link.swallow(TO_CLIENT, cmd.channel, (spec.Basic.GetOk, spec.Basic.GetEmpty))
        return None


class SecondConfirmSelectRestartsCount(ConfirmMutant):
    """A second confirm.select on a confirm channel restarts the sequence numbers at 1,
    as the client sees them."""

    breaks = ("PC-15",)

    def from_client(self, link, cmd):
        state = link.tracker.channel(cmd.channel)
        if isinstance(cmd.method, spec.Confirm.Select) and state.mode == "confirm":
            link.state[("restarted after", cmd.channel)] = state.next_seq - 1
        return None

    def confirm(self, link, cmd):
        offset = link.state.get(("restarted after", cmd.channel), 0)
        if offset and cmd.method.delivery_tag > offset:
            return replaced(cmd, changed(cmd.method, delivery_tag=cmd.method.delivery_tag - offset))
        return None


class AcceptedPublishesSometimesNacked(ConfirmMutant):
    """Every third confirm is a nack, though the queue took the message and nothing failed."""

    breaks = ("PC-16",)

    def confirm(self, link, cmd):
        count = link.state["confirms"] = link.state.get("confirms", 0) + 1
        if isinstance(cmd.method, spec.Basic.Ack) and count % 3 == 0:
            return replaced(cmd, spec.Basic.Nack(delivery_tag=cmd.method.delivery_tag, multiple=cmd.method.multiple))
        return None


class ConfirmsWaitForConsumerAcks(ConfirmMutant):
    """A publish is confirmed only once no consumer holds a delivery unacked: while any
    connection through the proxy has one outstanding, confirms are held back (checked
    every 50 ms), as on a broker that ties confirms to consumer acknowledgements."""

    breaks = ("PC-19",)
    poll_s = 0.05

    def confirm(self, link, cmd):
        held = link.state.setdefault(("held", cmd.channel), [])
        if not held:
            asyncio.get_running_loop().call_later(self.poll_s, self._release, link, cmd.channel)
        held.append(cmd)
        return []

    def watched_links(self, link):
        """The connections whose unacked deliveries hold `link`'s confirms back: its proxy's."""
        return link.proxy.links

    def _release(self, link, channel):
        live = [other for other in self.watched_links(link) if not other._writers[TO_BROKER].is_closing()]
        if any(state.outstanding for other in live for state in other.tracker.channels.values()):
            self.held_back(link, channel)
            asyncio.get_running_loop().call_later(self.poll_s, self._release, link, channel)
            return
        for held in link.state.pop(("held", channel), []):
            link.send(TO_CLIENT, held, raw=True)

    def held_back(self, link, channel) -> None:
        """Called each time confirms stay held because a delivery is unacked."""


class AcksWithoutConfirmMode(Mutant):
    """A persistent or mandatory publish on a channel in neither confirm nor tx mode is
    answered with a basic.ack, numbered as if the channel counted its publishes."""

    breaks = ("PC-20",)

    def from_client(self, link, cmd):
        m, state = cmd.method, link.tracker.channel(cmd.channel)
        properties = cmd.header.properties if cmd.header else None
        persistent = properties is not None and properties.delivery_mode == 2
        if isinstance(m, spec.Basic.Publish) and state.mode is None and (m.mandatory or persistent):
            link.to_client(cmd.channel, spec.Basic.Ack(delivery_tag=state.published_before_confirm + 1))
        return None


MUTANTS = [
    AnswersNowaitConfirmSelect,
    ShiftConfirmTags,
    CountsPublishesBeforeSelect,
    DuplicateConfirms,
    StaleMultipleConfirm,
    ReorderConfirms,
    UnroutableReturnedWithoutMandatory,
    ReturnAfterAck,
    ReturnsDropped,
    NackSentAsAck,
    PersistenceStripped,
    ConfirmsLostWhenQueueEmptied,
    RefusalHiddenBehindExchange,
    RefusedMessageWithdrawnEverywhere,
    SecondConfirmSelectRestartsCount,
    AcceptedPublishesSometimesNacked,
    ConfirmsWaitForConsumerAcks,
    AcksWithoutConfirmMode,
]
