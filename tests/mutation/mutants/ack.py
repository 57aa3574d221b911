"""Mutants of the ACK rules (delivery tags and consumer acknowledgements)."""

from __future__ import annotations

from pamqp import commands as spec

from tests.mutation.mutant_proxy import Command, Link
from .base import Mutant, changed, replaced, is_multiple, SETTLES


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


class TagsSettleAcrossChannels(Mutant):
    """Tags are not scoped to a channel: a settle of tag N on one channel settles the
    delivery with tag N of an earlier channel of the connection that holds one (the proxy
    moves the frame there)."""

    breaks = ("ACK-02",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, SETTLES) and not is_multiple(m):
            elsewhere = next((number for number, state in sorted(link.tracker.channels.items())
                              if number < cmd.channel and m.delivery_tag in state.outstanding), None)
            if elsewhere is not None:
                return [Command(elsewhere, m, cmd.header, cmd.bodies)]
        return None

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


MUTANTS = [
    TagsNotIncreasing,
    TagsSettleAcrossChannels,
    AcceptsNeverDeliveredTag,
    AcceptsDoubleAck,
    AcceptsAckOnAnotherChannel,
    AckMultipleIgnored,
    AckSingleActsAsMultiple,
    AcceptsMultipleAckOfSettledTag,
    AckAllRefused,
    AckOfTagZeroAccepted,
    BadAckInTransactionIgnored,
    AckOfAutoAckDeliveryAccepted,
    ChannelErrorClosesConnection,
    AcceptsAckOfRequeuedTag,
    HidePreconditionFailed,
    AcceptsNegativeSettleOfUnknownTag,
]
