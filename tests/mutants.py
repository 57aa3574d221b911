"""The mutant catalogue: each mutation makes RabbitMQ, seen through tests/mutant_proxy.py,
behave like a broker that breaks the rules in its `breaks` (catalogue ids of RULES.md).
One or more mutants for every MUST rule a proxy can express; a few SHOULD rules too
(their tests must turn non-strict). A mutant is data plus two small hooks; it never
knows how a test is written, only what the rule promises.

Rules no mutant covers, and why: the INFO rules (ACK-01's contiguity, RQ-06, RD-07,
QOS-05/06/08/09, PC-12/13/17, TX-07, CON-08, CON-13, FLT-06) have no verdict to break;
RQ-05, RQ-07 and CON-14 (SHOULD, ordering among messages or consumers, and RQ-07's
promptness) need the proxy to hold a queue's contents, which it cannot. "Delivery tags start at 2 on every channel" breaks
no rule: tags stay positive, increasing and per channel; where the count starts is INFO
(ACK-01 records "contiguous from 1"), so it is not a mutant.
"""

from __future__ import annotations

import asyncio
import re

from pamqp import commands as spec
from pamqp.body import ContentBody
from pamqp.header import ContentHeader

from fixtures.catalogue import load_all_rules
from fixtures.rules import MUST, REGISTRY, SHOULD
from tests.mutant_proxy import TO_BROKER, TO_CLIENT, Command, Identity, Link, command

# The MUST and SHOULD rules of the catalogue, from the registry (the rule modules' own
# declarations). Every MUST rule is broken by at least one mutant below unless listed in
# NOT_EXPRESSIBLE; a model check (MDL-*) is judged through the rules it covers.
load_all_rules()
MUST_RULES = tuple(sorted(r.id for r in REGISTRY.values() if r.strength is MUST and not r.covers))
SHOULD_RULES = tuple(sorted(r.id for r in REGISTRY.values() if r.strength is SHOULD))
NOT_EXPRESSIBLE: dict[str, str] = {}

SETTLES = (spec.Basic.Ack, spec.Basic.Nack, spec.Basic.Reject)
CONFIRMS = (spec.Basic.Ack, spec.Basic.Nack)


def changed(method, **fields):
    """A copy of a pamqp method with some fields changed (the original stays as the
    client or broker sent it, for the tracker)."""
    return type(method)(**{**dict(method), **fields})


def replaced(cmd: Command, method) -> list[Command]:
    return [Command(cmd.channel, method, cmd.header, cmd.bodies)]


def without_argument(cmd: Command, kind: type, name: str) -> list[Command] | None:
    """`cmd` with the argument `name` removed, if it is a `kind` method that carries it."""
    m = cmd.method
    if isinstance(m, kind) and name in (m.arguments or {}):
        return replaced(cmd, changed(m, arguments={k: v for k, v in m.arguments.items() if k != name}))
    return None


def is_multiple(method) -> bool:
    return bool(getattr(method, "multiple", False))


class Mutant(Identity):
    breaks: tuple[str, ...] = ()
    # The managed broker the mutant is judged against: the rules some mutants break exist
    # only in newer RabbitMQ (x-consumer-timeout: 3.12+), where 3.10.8 answers unsupported.
    judged_on: str = "rabbitmq"

    @property
    def name(self) -> str:  # type: ignore[override]
        return re.sub(r"(?<!^)(?=[A-Z])", "_", type(self).__name__).lower()

    @property
    def description(self) -> str:
        return " ".join((type(self).__doc__ or "").split())


# -- ACK: delivery tags and consumer acknowledgements ---------------------------------------
class TagRenumbering(Mutant):
    """Base: the client sees other delivery tags than the broker's; its acks are mapped back."""

    def client_tag(self, link: Link, channel: int, broker_tag: int) -> int:
        raise NotImplementedError

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, (spec.Basic.Deliver, spec.Basic.GetOk)):
            tag = self.client_tag(link, cmd.channel, cmd.method.delivery_tag)
            link.state.setdefault(("to broker tag", cmd.channel), {})[tag] = cmd.method.delivery_tag
            return replaced(cmd, changed(cmd.method, delivery_tag=tag))
        return None

    def from_client(self, link, cmd):
        if isinstance(cmd.method, SETTLES) and cmd.method.delivery_tag:
            mapping = link.state.get(("to broker tag", cmd.channel), {})
            if cmd.method.delivery_tag in mapping:
                return replaced(cmd, changed(cmd.method, delivery_tag=mapping[cmd.method.delivery_tag]))
        return None


class TagsNotIncreasing(TagRenumbering):
    """Delivery tags come in swapped pairs (2, 1, 4, 3 ...): not increasing per channel."""

    breaks = ("ACK-01",)

    def client_tag(self, link, channel, broker_tag):
        return broker_tag + 1 if broker_tag % 2 else broker_tag - 1


class TagsConnectionWide(TagRenumbering):
    """One tag sequence for the whole connection: a second channel does not start its own."""

    breaks = ("ACK-02",)

    def client_tag(self, link, channel, broker_tag):
        link.state["next tag"] = link.state.get("next tag", 0) + 1
        return link.state["next tag"]


class AckDropping(Mutant):
    """Base: some of the client's ack/nack/reject frames never reach the broker, so the
    error the broker would raise for them never happens."""

    def drops(self, link: Link, channel: int, method) -> bool:
        raise NotImplementedError

    def from_client(self, link, cmd):
        if isinstance(cmd.method, SETTLES) and self.drops(link, cmd.channel, cmd.method):
            return []
        return None


class AcceptsNeverDeliveredTag(AckDropping):
    """Settling a tag never delivered on any channel of the connection is ignored."""

    breaks = ("ACK-03",)

    def drops(self, link, channel, method):
        highest = max((c.max_tag for c in link.tracker.channels.values()), default=0)
        return method.delivery_tag > highest


class AcceptsDoubleAck(AckDropping):
    """A second ack of a tag already acked is ignored (outside transactions)."""

    breaks = ("ACK-04",)

    def drops(self, link, channel, method):
        state = link.tracker.channel(channel)
        return (state.mode != "tx" and not is_multiple(method)
                and state.settled.get(method.delivery_tag) == "ack")


class AcceptsAckOnAnotherChannel(AckDropping):
    """An ack of a tag delivered on another channel, never on this one, is ignored."""

    breaks = ("ACK-05",)

    def drops(self, link, channel, method):
        here = link.tracker.channel(channel)
        elsewhere = any(method.delivery_tag in c.deliveries for n, c in link.tracker.channels.items() if n != channel)
        return method.delivery_tag not in here.deliveries and elsewhere


class AckMultipleIgnored(Mutant):
    """ack(N, multiple=true) settles only N."""

    breaks = ("ACK-06", "QOS-07")

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Ack) and cmd.method.multiple and cmd.method.delivery_tag:
            return replaced(cmd, changed(cmd.method, multiple=False))
        return None


class AckSingleActsAsMultiple(Mutant):
    """ack(N, multiple=false) also settles every outstanding tag below N."""

    breaks = ("ACK-06",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Basic.Ack) and not m.multiple and m.delivery_tag:
            if any(t < m.delivery_tag for t in link.tracker.channel(cmd.channel).outstanding):
                return replaced(cmd, changed(m, multiple=True))
        return None


class AcceptsMultipleAckOfSettledTag(AckDropping):
    """ack(N, multiple=true) with N already settled is ignored instead of failing."""

    breaks = ("ACK-07",)

    def drops(self, link, channel, method):
        return is_multiple(method) and method.delivery_tag in link.tracker.channel(channel).settled


class AckAllRefused(Mutant):
    """ack(0, multiple=true) is treated as an ack of the unknown tag 0."""

    breaks = ("ACK-08",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Ack) and cmd.method.multiple and cmd.method.delivery_tag == 0:
            return replaced(cmd, changed(cmd.method, multiple=False))
        return None


class AckOfTagZeroAccepted(Mutant):
    """ack(0, multiple=false) settles everything instead of being an unknown tag (SHOULD)."""

    breaks = ("ACK-09",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Ack) and not cmd.method.multiple and cmd.method.delivery_tag == 0:
            return replaced(cmd, changed(cmd.method, multiple=True))
        return None


class BadAckInTransactionIgnored(AckDropping):
    """On a transactional channel an unknown or double ack is silently ignored."""

    breaks = ("ACK-10",)

    def drops(self, link, channel, method):
        state = link.tracker.channel(channel)
        if state.mode != "tx" or (method.delivery_tag == 0 and is_multiple(method)):
            return False
        return method.delivery_tag not in state.outstanding


class AckOfAutoAckDeliveryAccepted(AckDropping):
    """Acking a delivery made in automatic-ack mode is ignored."""

    breaks = ("ACK-11",)

    def drops(self, link, channel, method):
        delivered = link.tracker.channel(channel).deliveries.get(method.delivery_tag)
        return delivered is not None and delivered.no_ack


class ChannelErrorClosesConnection(Mutant):
    """A channel error provoked by an ack, nack or reject closes the whole connection
    instead of the one channel."""

    breaks = ("ACK-12",)
    blamed = {(60, 80), (60, 90), (60, 120)}  # basic.ack, basic.reject, basic.nack

    def from_broker(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Channel.Close) and m.reply_code >= 400 and (m.class_id, m.method_id) in self.blamed:
            link.escalate_to_connection_close(cmd.method.reply_code, cmd.method.reply_text)
            return []
        return None


class AcceptsAckOfRequeuedTag(AckDropping):
    """After a requeue, acking the delivery's old tag is ignored."""

    breaks = ("ACK-13",)

    def drops(self, link, channel, method):
        return method.delivery_tag in link.tracker.channel(channel).requeued


class HidePreconditionFailed(Mutant):
    """Every 406 channel close is hidden: the channel silently stays open."""

    breaks = ("ACK-03", "ACK-04", "ACK-05", "ACK-07", "ACK-09", "ACK-10", "ACK-11", "ACK-13",
              "TX-01", "TX-02", "TX-03", "CON-10", "CON-11", "CON-12")

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, spec.Channel.Close) and cmd.method.reply_code == 406:
            link.hide_channel_close(cmd.channel)
            return []
        return None


# -- RQ: negative acknowledgements and requeue ------------------------------------------------
class RequeueFlagFlipped(Mutant):
    """nack/reject with requeue=true drops the message instead."""

    breaks = ("RQ-01", "RQ-03", "RQ-04")

    def from_client(self, link, cmd):
        if isinstance(cmd.method, (spec.Basic.Nack, spec.Basic.Reject)) and cmd.method.requeue:
            return replaced(cmd, changed(cmd.method, requeue=False))
        return None


class RequeueFalseRequeues(Mutant):
    """nack/reject with requeue=false puts the message back instead of dropping it."""

    breaks = ("RQ-02",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, (spec.Basic.Nack, spec.Basic.Reject)) and not cmd.method.requeue:
            return replaced(cmd, changed(cmd.method, requeue=True))
        return None


class NackMultipleIgnored(Mutant):
    """nack(N, multiple=true) requeues only N."""

    breaks = ("RQ-03",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Nack) and cmd.method.multiple and cmd.method.delivery_tag:
            return replaced(cmd, changed(cmd.method, multiple=False))
        return None


class NackAllDrops(Mutant):
    """nack(0, multiple=true, requeue=true) drops everything outstanding."""

    breaks = ("RQ-04",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Basic.Nack) and m.multiple and m.delivery_tag == 0 and m.requeue:
            return replaced(cmd, changed(m, requeue=False))
        return None


# -- RD: redelivery and automatic requeue -------------------------------------------------------
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
    """Every delivery claims to be a first delivery (redelivered=false). (RD-03 promises
    the requeue after a channel error, not the flag: it is not listed.)"""

    breaks = ("RQ-01", "RD-01", "RD-02", "RD-06", "RD-09", "CON-10", "FLT-03", "FLT-04")

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


# -- QOS: prefetch -------------------------------------------------------------------------------
class PrefetchIgnored(Mutant):
    """basic.qos is answered but the limit is never applied (the broker sees prefetch 0)."""

    breaks = ("QOS-01", "QOS-07")

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Qos) and cmd.method.prefetch_count:
            return replaced(cmd, changed(cmd.method, prefetch_count=0))
        return None


class PrefetchZeroLimits(Mutant):
    """Prefetch 0 means one unacked delivery, not unlimited."""

    breaks = ("QOS-02",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Qos) and cmd.method.prefetch_count == 0:
            return replaced(cmd, changed(cmd.method, prefetch_count=1))
        return None


class PrefetchLimitsAutoAck(Mutant):
    """With a prefetch set, automatic-ack consumers are held to it (made manual, never acked)."""

    breaks = ("QOS-03",)

    def from_client(self, link, cmd):
        if (isinstance(cmd.method, spec.Basic.Consume) and cmd.method.no_ack
                and link.tracker.channel(cmd.channel).prefetch):
            return replaced(cmd, changed(cmd.method, no_ack=False))
        return None


class PrefetchLimitsGet(Mutant):
    """basic.get answers get-empty once the channel holds `prefetch` unacked deliveries."""

    breaks = ("QOS-04",)

    def from_client(self, link, cmd):
        state = link.tracker.channel(cmd.channel)
        if isinstance(cmd.method, spec.Basic.Get) and state.prefetch and len(state.outstanding) >= state.prefetch:
            link.to_client(cmd.channel, spec.Basic.GetEmpty())
            return []
        return None


# -- PC: publisher confirms ------------------------------------------------------------------------
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

    breaks = ("PC-04", "PC-05", "FLT-02")

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
    """basic.return is never sent."""

    breaks = ("PC-08",)

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
    """Persistent publishes are stored as transient: confirmed, then lost in a restart."""

    breaks = ("PC-10", "FLT-08", "CON-15")
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


# -- TX: transactions and the tx/confirm exclusion ------------------------------------------------------
class TxChannelAcceptsConfirmSelect(Mutant):
    """confirm.select on a transactional channel is answered select-ok."""

    breaks = ("TX-01",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Confirm.Select) and link.tracker.channel(cmd.channel).mode == "tx":
            if not cmd.method.nowait:
                link.to_client(cmd.channel, spec.Confirm.SelectOk())
            return []
        return None


class ConfirmChannelAcceptsTxSelect(Mutant):
    """tx.select on a channel in confirm mode is answered select-ok."""

    breaks = ("TX-02",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Tx.Select) and link.tracker.channel(cmd.channel).mode == "confirm":
            link.to_client(cmd.channel, spec.Tx.SelectOk())
            return []
        return None


class CommitWithoutSelectAccepted(Mutant):
    """tx.commit and tx.rollback on a non-transactional channel are answered ok."""

    breaks = ("TX-03",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, (spec.Tx.Commit, spec.Tx.Rollback)) and link.tracker.channel(cmd.channel).mode != "tx":
            link.to_client(cmd.channel, spec.Tx.CommitOk() if isinstance(cmd.method, spec.Tx.Commit)
                           else spec.Tx.RollbackOk())
            return []
        return None


class RollbackCommits(Mutant):
    """tx.rollback commits: published messages and acks take effect."""

    breaks = ("TX-04", "TX-05")

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Tx.Rollback):
            link.state[("rollbacks", cmd.channel)] = link.state.get(("rollbacks", cmd.channel), 0) + 1
            return [command(cmd.channel, spec.Tx.Commit())]
        return None

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, spec.Tx.CommitOk) and link.state.get(("rollbacks", cmd.channel)):
            link.state[("rollbacks", cmd.channel)] -= 1
            return [command(cmd.channel, spec.Tx.RollbackOk())]
        return None


class FakeTransactions(Mutant):
    """tx.select, tx.commit and tx.rollback are answered ok and nothing is transactional:
    publishes and acks take effect at once, returns come before the commit."""

    breaks = ("TX-04", "TX-05", "TX-06")

    def from_client(self, link, cmd):
        replies = {spec.Tx.Select: spec.Tx.SelectOk, spec.Tx.Commit: spec.Tx.CommitOk,
                   spec.Tx.Rollback: spec.Tx.RollbackOk}
        if type(cmd.method) in replies:
            link.to_client(cmd.channel, replies[type(cmd.method)]())
            return []
        return None


# -- PC-14, PC-15, TX-04 (several messages), TX-08, TX-09, TX-10 (issue #12) --------------------------
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


class EarlierPublishesCommittedAtOnce(Mutant):
    """In a transaction every publish but the last is committed when the next one comes:
    the proxy slips a tx.commit in before each later publish and hides its commit-ok.
    A transaction of one message looks right; one of several is neither invisible before
    commit nor discarded by rollback. (RabbitMQ refuses any frame on a channel while a
    commit is in progress, so the client's frames wait in the proxy for the commit-ok.)"""

    breaks = ("TX-04", "TX-08")

    def from_client(self, link, cmd):
        held = link.state.get(("held", cmd.channel))
        if held is not None:
            held.append(cmd)
            return []
        return self.forward(link, cmd)

    def forward(self, link, cmd):
        count = ("publishes in tx", cmd.channel)
        if isinstance(cmd.method, (spec.Tx.Commit, spec.Tx.Rollback, spec.Channel.Open)):
            link.state[count] = 0
        elif isinstance(cmd.method, spec.Basic.Publish) and link.tracker.channel(cmd.channel).mode == "tx":
            earlier = link.state.get(count, 0)
            link.state[count] = earlier + 1
            if earlier:
                link.state[("held", cmd.channel)] = [cmd]
                return [command(cmd.channel, spec.Tx.Commit())]
        return None

    def from_broker(self, link, cmd):
        if not (isinstance(cmd.method, spec.Tx.CommitOk) and ("held", cmd.channel) in link.state):
            return None
        publish, *later = link.state.pop(("held", cmd.channel))
        link.send(TO_BROKER, publish, raw=True)
        for waiting in later:
            if ("held", cmd.channel) in link.state:
                link.state[("held", cmd.channel)].append(waiting)
                continue
            replacement = self.forward(link, waiting)
            for out in [waiting] if replacement is None else replacement:
                link.send(TO_BROKER, out, raw=replacement is None)
        return []  # the commit-ok of the proxy's own commit


class SettlesInTransactionLost(Mutant):
    """On a transactional channel basic.nack and basic.reject never reach the broker:
    the commit applies none of them."""

    breaks = ("TX-09",)

    def from_client(self, link, cmd):
        if (isinstance(cmd.method, (spec.Basic.Nack, spec.Basic.Reject))
                and link.tracker.channel(cmd.channel).mode == "tx"):
            return []
        return None


class AcceptedPublishesSometimesNacked(ConfirmMutant):
    """Every third confirm is a nack, though the queue took the message (SHOULD: non-strict)."""

    breaks = ("PC-16",)

    def confirm(self, link, cmd):
        count = link.state["confirms"] = link.state.get("confirms", 0) + 1
        if isinstance(cmd.method, spec.Basic.Ack) and count % 3 == 0:
            return replaced(cmd, spec.Basic.Nack(delivery_tag=cmd.method.delivery_tag, multiple=cmd.method.multiple))
        return None


class PersistenceStrippedInTransactions(PersistenceStripped):
    """Persistent publishes on a transactional channel are stored as transient: committed,
    then lost in a restart. Like PC-10, judged only against a broker the suite restarts."""

    breaks = ("TX-10",)

    def from_client(self, link, cmd):
        return super().from_client(link, cmd) if link.tracker.channel(cmd.channel).mode == "tx" else None


# -- CON: consumers ---------------------------------------------------------------------------------
class ConsumeFromMissingQueueAccepted(Mutant):
    """Consuming from a queue that does not exist is answered consume-ok."""

    breaks = ("CON-01",)

    def from_broker(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Channel.Close) and m.reply_code == 404 and (m.class_id, m.method_id) == (60, 20):
            link.hide_channel_close(cmd.channel)
            link.to_client(cmd.channel, spec.Basic.ConsumeOk(consumer_tag="amq.ctag-mutant"))
            return []
        return None


class CancelRequeuesUnacked(Mutant):
    """basic.cancel requeues the consumer's unacked deliveries (they are no longer ackable)."""

    breaks = ("CON-02",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Cancel) and link.tracker.channel(cmd.channel).outstanding:
            link.to_broker(cmd.channel, spec.Basic.Nack(delivery_tag=0, multiple=True, requeue=True))
        return None


class CancelOfUnknownTagFails(Mutant):
    """Cancelling an unknown consumer tag closes the channel (404) instead of cancel-ok."""

    breaks = ("CON-03",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Cancel) and \
                cmd.method.consumer_tag not in link.tracker.channel(cmd.channel).consumers:
            link.fake_channel_close(cmd.channel, 404, f"NOT_FOUND - no consumer '{cmd.method.consumer_tag}'")
            return []
        return None


class ConsumerTagReuseAccepted(Mutant):
    """A consume with a tag already in use on the channel is answered consume-ok."""

    breaks = ("CON-04",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Basic.Consume) and m.consumer_tag in link.tracker.channel(cmd.channel).consumers:
            if not m.nowait:
                link.to_client(cmd.channel, spec.Basic.ConsumeOk(consumer_tag=m.consumer_tag))
            return []
        return None


class ExclusiveIgnored(Mutant):
    """The exclusive flag of basic.consume is ignored."""

    breaks = ("CON-05", "CON-07")

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Consume) and cmd.method.exclusive:
            return replaced(cmd, changed(cmd.method, exclusive=False))
        return None


class SingleActiveConsumerIgnored(Mutant):
    """x-single-active-consumer is ignored: every consumer of the queue receives."""

    breaks = ("CON-06",)

    def from_client(self, link, cmd):
        return without_argument(cmd, spec.Queue.Declare, "x-single-active-consumer")


class CancelNotificationsDropped(Mutant):
    """The broker never tells a consumer that its queue was deleted (no basic.cancel)."""

    breaks = ("CON-09",)

    def from_broker(self, link, cmd):
        return [] if isinstance(cmd.method, spec.Basic.Cancel) else None


class ConsumerTimeoutHidden(Mutant):
    """The consumer-timeout channel close never reaches the client; the channel stays open."""

    breaks = ("CON-10", "CON-11", "CON-12")

    def from_broker(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Channel.Close) and "timed out" in str(m.reply_text) and m.reply_code == 406:
            link.hide_channel_close(cmd.channel)
            return []
        return None


class ConsumerTimeoutArgumentStripped(Mutant):
    """queue.declare loses its x-consumer-timeout argument: the queue's own consumer
    timeout never reaches the broker, whose long global timeout applies instead."""

    breaks = ("CON-10", "CON-18")
    judged_on = "rabbitmq-4.0"

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Queue.Declare) and "x-consumer-timeout" in (m.arguments or {}):
            arguments = {k: v for k, v in m.arguments.items() if k != "x-consumer-timeout"}
            return replaced(cmd, changed(m, arguments=arguments))
        return None


class TimeoutRequeuesOnlyTheLateConsumer(Mutant):
    """A consumer timeout returns only the late consumer's deliveries: every delivery to
    a channel's second and later consumers is acked to the broker by the proxy as it
    passes (the client still holds it; its own ack of such a tag is dropped)."""

    breaks = ("CON-23",)

    def from_broker(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Basic.Deliver):
            first = link.state.setdefault(("first consumer", cmd.channel), m.consumer_tag)
            if m.consumer_tag != first:
                link.state.setdefault(("settled", cmd.channel), set()).add(m.delivery_tag)
                link.to_broker(cmd.channel, spec.Basic.Ack(delivery_tag=m.delivery_tag))
        return None

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, SETTLES) and m.delivery_tag in link.state.get(("settled", cmd.channel), ()):
            return []
        return None


class PropertyAltered(Mutant):
    """One message property changes on the way to the consumer (content type, or a header)."""

    breaks = ("CON-15",)

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, (spec.Basic.Deliver, spec.Basic.GetOk)) and cmd.header is not None:
            properties = cmd.header.properties or spec.Basic.Properties()
            if properties.content_type:
                altered = changed(properties, content_type=properties.content_type + "+mutant")
            else:
                altered = changed(properties, headers={**(properties.headers or {}), "x-mutant": 1})
            return [Command(cmd.channel, cmd.method, ContentHeader(0, cmd.header.body_size, altered), cmd.bodies)]
        return None


class GetEmptyHidden(Mutant):
    """The first get-empty on each channel is replaced by a message nobody published."""

    breaks = ("CON-16",)

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.GetEmpty) and not link.state.get(("phantom", cmd.channel)):
            link.state[("phantom", cmd.channel)] = True
            body = b"phantom"
            tag = link.tracker.channel(cmd.channel).max_tag + 1000
            return [Command(cmd.channel, spec.Basic.GetOk(delivery_tag=tag, redelivered=False, exchange="",
                                                          routing_key="phantom", message_count=0),
                            ContentHeader(0, len(body), spec.Basic.Properties()), [ContentBody(body)])]
        return None


# -- CON-05 (quorum), CON-17, CON-19, CON-20, CON-21, CON-22 (issue #12) --------------------------------------
class QuorumQueuesHonourExclusive(Mutant):
    """Quorum queues enforce the exclusive flag as classic queues do: a consume that
    exclusivity would forbid on a quorum queue is refused with 403 instead of accepted."""

    breaks = ("CON-05",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Queue.Declare) and (m.arguments or {}).get("x-queue-type") == "quorum":
            link.shared.setdefault("quorum queues", {})[m.queue] = None  # queue -> "exclusive"/"shared" in use
        if isinstance(m, spec.Basic.Consume) and m.queue in link.shared.get("quorum queues", {}):
            queues = link.shared["quorum queues"]
            if queues[m.queue] == "exclusive" or (m.exclusive and queues[m.queue]):
                link.fake_channel_close(cmd.channel, 403, f"ACCESS_REFUSED - queue '{m.queue}' in exclusive use")
                return []
            queues[m.queue] = "exclusive" if m.exclusive else "shared"
        return None


class ConsumerPrioritiesIgnored(Mutant):
    """x-priority in basic.consume is ignored: every consumer has the same priority."""

    breaks = ("CON-17",)

    def from_client(self, link, cmd):
        return without_argument(cmd, spec.Basic.Consume, "x-priority")


class ExclusivityOutlivesCancel(Mutant):
    """Cancelling an exclusive consumer is answered cancel-ok but never reaches the broker:
    the consumer, and its exclusive hold on the queue, live on."""

    breaks = ("CON-19",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Basic.Consume) and m.exclusive:
            link.state.setdefault(("exclusive consumes", cmd.channel), []).append(True)
        elif isinstance(m, spec.Basic.Consume):
            link.state.setdefault(("exclusive consumes", cmd.channel), []).append(False)
        elif isinstance(m, spec.Basic.Cancel) and m.consumer_tag in link.state.get("exclusive tags", set()):
            if not m.nowait:
                link.to_client(cmd.channel, spec.Basic.CancelOk(consumer_tag=m.consumer_tag))
            return []
        return None

    def from_broker(self, link, cmd):
        pending = link.state.get(("exclusive consumes", cmd.channel))
        if isinstance(cmd.method, spec.Basic.ConsumeOk) and pending and pending.pop(0):
            link.state.setdefault("exclusive tags", set()).add(cmd.method.consumer_tag)
        return None


class DroppedConnectionsLinger(Mutant):
    """A client connection that ends without connection.close (a TCP reset) stays open at
    the broker for another 20 s: its consumers, their exclusive hold and their unacked
    deliveries outlive the client, as on a broker that does not notice a dead peer."""

    breaks = ("CON-19", "CON-20")
    linger_s = 20.0

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Connection.Close):
            link.state["closing"] = True
        return None

    async def on_eof(self, link, direction):
        if direction == TO_BROKER and not link.state.get("closing"):
            await asyncio.sleep(self.linger_s)  # the broker side stays open until then


class ForgedUserIdCleared(Mutant):
    """A published message's user-id property is removed on the way to the broker, so a
    forged user-id is never checked (and the message is accepted)."""

    breaks = ("CON-22",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Publish) and cmd.header is not None and \
                cmd.header.properties is not None and cmd.header.properties.user_id:
            properties = changed(cmd.header.properties, user_id=None)
            return [Command(cmd.channel, cmd.method, ContentHeader(0, cmd.header.body_size, properties), cmd.bodies)]
        return None


# CON-21 is unsupported on the mutation node (RabbitMQ 3.10.8 has no single-active-consumer
# priority takeover; it came in 4.0): no mutant can turn an unsupported case into a failure there.
NOT_EXPRESSIBLE["CON-21"] = ("unsupported on the mutation node, RabbitMQ 3.10.8 (priority takeover for single "
                             "active consumers arrived in 4.0): a mutant cannot make an unsupported case fail")


# -- FLT: data safety under faults ---------------------------------------------------------------------
class DeliveriesLost(Mutant):
    """Every fifth push delivery vanishes (acked to the broker by the proxy)."""

    breaks = ("FLT-01",)

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Deliver):
            count = link.state["deliveries"] = link.state.get("deliveries", 0) + 1
            if count % 5 == 0:
                if not link.tracker.channel(cmd.channel).consumers.get(cmd.method.consumer_tag, False):
                    link.to_broker(cmd.channel, spec.Basic.Ack(delivery_tag=cmd.method.delivery_tag))
                return []
        return None


class AcksLostWhenSliced(Mutant):
    """A basic.ack whose bytes arrive over more than one TCP read is ignored."""

    breaks = ("FLT-05",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Ack) and cmd.split:
            return []
        return None


class AcksBeforeCloseLost(Mutant):
    """Acks followed within 50 ms by their channel's close (or the connection's) are lost."""

    breaks = ("FLT-07",)
    hold_s = 0.05

    def from_client(self, link, cmd):
        held = link.state.get("held")
        if held is None:
            if isinstance(cmd.method, spec.Basic.Ack):
                link.state["held"] = [cmd]
                asyncio.get_running_loop().call_later(self.hold_s, self._flush, link)
                return []
            return None
        if isinstance(cmd.method, (spec.Channel.Close, spec.Connection.Close)):
            closing = None if isinstance(cmd.method, spec.Connection.Close) else cmd.channel
            held[:] = [h for h in held if not (isinstance(h.method, spec.Basic.Ack)
                                               and closing in (None, h.channel))]
        held.append(cmd)
        return []

    def _flush(self, link):
        for cmd in link.state.pop("held", None) or []:
            link.send(TO_BROKER, cmd, raw=True)

    async def on_eof(self, link, direction):
        if direction == TO_BROKER:
            link.state.pop("held", None)


# -- ACK-14, RQ-08, RD-10, QOS-10, QOS-11 (issue #12: negative settles, dead-lettering, recover, slots) --
class AcceptsNegativeSettleOfUnknownTag(AckDropping):
    """A nack or reject of a tag the channel already settled, or of a tag delivered only on
    another channel, is ignored (an ack still fails as it should)."""

    breaks = ("ACK-04", "ACK-05", "ACK-14")

    def drops(self, link, channel, method):
        if not isinstance(method, (spec.Basic.Nack, spec.Basic.Reject)) or is_multiple(method):
            return False
        here = link.tracker.channel(channel)
        elsewhere = any(method.delivery_tag in c.deliveries for n, c in link.tracker.channels.items() if n != channel)
        return method.delivery_tag in here.settled or (method.delivery_tag not in here.deliveries and elsewhere)


class NackMultipleDeadLettersOnlyItsTag(Mutant):
    """nack(N, multiple=true, requeue=false) dead-letters N only: the proxy acks the other
    deliveries it covers first, so they are dropped instead."""

    breaks = ("RQ-02", "RQ-08")

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Basic.Nack) and m.multiple and not m.requeue and m.delivery_tag:
            below = [t for t in link.tracker.channel(cmd.channel).outstanding if t < m.delivery_tag]
            return [command(cmd.channel, spec.Basic.Ack(delivery_tag=t)) for t in below] + \
                replaced(cmd, changed(m, multiple=False))
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


class OnlyLowestAckFreesASlot(Mutant):
    """Only an ack of the lowest outstanding tag frees a prefetch slot: after an ack of any
    other tag, the delivery it lets through is held back until the lowest is acked."""

    breaks = ("QOS-01", "QOS-10")

    def from_client(self, link, cmd):
        m = cmd.method
        state = link.tracker.channel(cmd.channel)
        if isinstance(m, spec.Basic.Ack) and not m.multiple and state.consumers and m.delivery_tag in state.outstanding:
            if m.delivery_tag != state.outstanding[0]:
                link.state[("withhold", cmd.channel)] = link.state.get(("withhold", cmd.channel), 0) + 1
            else:
                for held in link.state.pop(("held", cmd.channel), []):
                    link.send(TO_CLIENT, held, raw=True)
        return None

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Deliver) and link.state.get(("withhold", cmd.channel)):
            link.state[("withhold", cmd.channel)] -= 1
            link.state.setdefault(("held", cmd.channel), []).append(cmd)
            return []
        return None


class TransactedSettlesApplyAtOnce(Mutant):
    """On a transactional channel a settle takes effect at once: the proxy commits right
    after it (and swallows that commit-ok), so its prefetch slot is freed before the
    client's tx.commit and a rollback cannot undo it."""

    breaks = ("QOS-11", "TX-05")

    def from_client(self, link, cmd):
        if isinstance(cmd.method, SETTLES) and link.tracker.channel(cmd.channel).mode == "tx":
            link.swallow(TO_CLIENT, cmd.channel, spec.Tx.CommitOk)
            return [cmd, command(cmd.channel, spec.Tx.Commit())]
        return None


MUTANTS: dict[str, Mutant] = {m.name: m for m in (cls() for cls in [
    TagsNotIncreasing, TagsConnectionWide, AcceptsNeverDeliveredTag, AcceptsDoubleAck,
    AcceptsAckOnAnotherChannel, AckMultipleIgnored, AckSingleActsAsMultiple, AcceptsMultipleAckOfSettledTag,
    AckAllRefused, AckOfTagZeroAccepted, BadAckInTransactionIgnored, AckOfAutoAckDeliveryAccepted,
    ChannelErrorClosesConnection, AcceptsAckOfRequeuedTag, HidePreconditionFailed,
    RequeueFlagFlipped, RequeueFalseRequeues, NackMultipleIgnored, NackAllDrops,
    ClosedChannelLosesUnacked, LostConnectionLosesUnacked, ChannelErrorLosesUnacked, ClearRedelivered,
    AlwaysRedelivered, AckRequeues, RecoverDoesNothing, AutoAckIgnored, RedeliveryOnlyToFirstConsumer,
    PrefetchIgnored, PrefetchZeroLimits, PrefetchLimitsAutoAck, PrefetchLimitsGet,
    AnswersNowaitConfirmSelect, ShiftConfirmTags, CountsPublishesBeforeSelect, DuplicateConfirms,
    StaleMultipleConfirm, ReorderConfirms, UnroutableReturnedWithoutMandatory, ReturnAfterAck,
    ReturnsDropped, NackSentAsAck, PersistenceStripped, ConfirmsLostWhenQueueEmptied,
    TxChannelAcceptsConfirmSelect, ConfirmChannelAcceptsTxSelect, CommitWithoutSelectAccepted, RollbackCommits,
    FakeTransactions,
    RefusalHiddenBehindExchange, SecondConfirmSelectRestartsCount, EarlierPublishesCommittedAtOnce,
    SettlesInTransactionLost, AcceptedPublishesSometimesNacked, PersistenceStrippedInTransactions,
    ConsumeFromMissingQueueAccepted, CancelRequeuesUnacked, CancelOfUnknownTagFails, ConsumerTagReuseAccepted,
    ExclusiveIgnored, SingleActiveConsumerIgnored, CancelNotificationsDropped, ConsumerTimeoutHidden,
    ConsumerTimeoutArgumentStripped, TimeoutRequeuesOnlyTheLateConsumer, PropertyAltered, GetEmptyHidden,
    QuorumQueuesHonourExclusive, ConsumerPrioritiesIgnored, ExclusivityOutlivesCancel, DroppedConnectionsLinger,
    ForgedUserIdCleared,
    DeliveriesLost, AcksLostWhenSliced, AcksBeforeCloseLost,
    AcceptsNegativeSettleOfUnknownTag, NackMultipleDeadLettersOnlyItsTag, RecoverSkipsOrphanedDeliveries,
    OnlyLowestAckFreesASlot, TransactedSettlesApplyAtOnce,
])}

# The CLU rules need a cluster of three nodes the suite starts; the mutation node is a
# single RabbitMQ behind a frame-rewriting proxy, where they are unsupported. CLU-03 has a
# live mutant on the managed cluster (tests/cluster_mutants.py, killed by
# tests/test_cluster_mutants.py); the others' verdict power is shown on recorded cluster
# histories (tests/test_cluster_history.py: a confirmed message missing after the heal, a
# minority confirm, an unflagged redelivery).
for _clu in ("CLU-01", "CLU-02", "CLU-04", "CLU-05"):
    NOT_EXPRESSIBLE[_clu] = ("needs a three-node cluster; the mutation node is one RabbitMQ: the checker's "
                             "verdicts on cluster histories are tested in tests/test_cluster_history.py")
