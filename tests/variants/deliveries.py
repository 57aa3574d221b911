"""Variants of how a broker hands out deliveries."""

from __future__ import annotations

import re

from pamqp import commands as spec

from amqp_conformance.fixtures.core.rules import CONFIRMS as CONFIRMS_GUIDE
from amqp_conformance.fixtures.core.rules import CONSUMERS
from tests.frame_proxy import SETTLES, changed, replaced
from .base import Held, Variant

SINGLE_ACTIVE = "x-single-active-consumer"


class SpacedDeliveryTags(Variant):
    """Delivery tags grow by three: the broker's tag n reaches the client as 3n. The
    client's acks, nacks and rejects are mapped back; a tag the client never received
    goes to the broker as one it never gave out, and the number in the broker's reply
    text is the client's again."""

    allowed_by = (CONFIRMS_GUIDE, "delivery tags are positive integers that grow monotonically within a "
                                  "channel; nothing says by how much (Consumer Acknowledgements: "
                                  "delivery identifiers)")
    spacing = 3
    never_given = 1 << 62  # above any tag a test reaches; never_given + tag still fits a signed long-long

    def from_broker(self, link, cmd):
        m = cmd.method
        if isinstance(m, (spec.Basic.Deliver, spec.Basic.GetOk)):
            return replaced(cmd, changed(m, delivery_tag=m.delivery_tag * self.spacing))
        if isinstance(m, spec.Channel.Close):
            text = m.reply_text
            for broker_tag, client_tag in link.state.pop(("settled", cmd.channel), {}).items():
                text = re.sub(rf"\b{broker_tag}\b", str(client_tag), text)
            return replaced(cmd, changed(m, reply_text=text)) if text != m.reply_text else None
        return None

    def from_client(self, link, cmd):
        m = cmd.method
        if not isinstance(m, SETTLES) or m.delivery_tag == 0 or m.delivery_tag >= self.never_given:
            return None  # tag 0 means "all"; a tag this high was never given out either way
        given, rest = divmod(m.delivery_tag, self.spacing)
        broker_tag = given if rest == 0 else self.never_given + m.delivery_tag
        link.state.setdefault(("settled", cmd.channel), {})[broker_tag] = m.delivery_tag
        return replaced(cmd, changed(m, delivery_tag=broker_tag))


class RoundRobinFromAnotherConsumer(Variant):
    """Consumers of one queue on one channel, alike in acknowledgement mode, prefetch and
    priority, are served round-robin starting from the second: each delivery goes to the
    consumer registered after the one the broker chose (the last one's to the first).
    Queues with a single active consumer are left alone."""

    allowed_by = (CONSUMERS, "consumers of equal priority are served round-robin; which of them is "
                             "served first is not said (Consumers: priority)")

    def from_client(self, link, cmd):
        m, channel = cmd.method, cmd.channel
        if isinstance(m, spec.Queue.Declare) and (m.arguments or {}).get(SINGLE_ACTIVE):
            link.shared.setdefault("single active queues", set()).add(m.queue)
        elif isinstance(m, spec.Channel.Open):  # a number used again: a new channel
            for key in [k for k in link.state if k[0] == "alike" and k[1] == channel]:
                del link.state[key]
        elif isinstance(m, spec.Basic.Consume):
            prefetch = link.tracker.channel(channel).prefetch
            kind = (m.queue, m.no_ack, m.exclusive, prefetch, str((m.arguments or {}).get("x-priority")))
            if m.nowait:  # no consume-ok will name it
                self._register(link, channel, kind, m.consumer_tag)
            else:
                link.state.setdefault(("consuming", channel), []).append(kind)
        elif isinstance(m, spec.Basic.Cancel):
            self._forget(link, channel, m.consumer_tag)
        return None

    def from_broker(self, link, cmd):
        m, channel = cmd.method, cmd.channel
        if isinstance(m, spec.Basic.ConsumeOk) and link.state.get(("consuming", channel)):
            self._register(link, channel, link.state[("consuming", channel)].pop(0), m.consumer_tag)
        elif isinstance(m, spec.Basic.Cancel):
            self._forget(link, channel, m.consumer_tag)
        elif isinstance(m, spec.Basic.Deliver):
            for key, tags in link.state.items():
                if key[0] == "alike" and key[1] == channel and m.consumer_tag in tags and len(tags) > 1:
                    turn = tags[(tags.index(m.consumer_tag) + 1) % len(tags)]
                    return replaced(cmd, changed(m, consumer_tag=turn))
        return None

    @staticmethod
    def _register(link, channel, kind, consumer_tag):
        queue, exclusive = kind[0], kind[2]
        if queue not in link.shared.get("single active queues", set()) and not exclusive:
            link.state.setdefault(("alike", channel, kind), []).append(consumer_tag)

    @staticmethod
    def _forget(link, channel, consumer_tag):
        for key, tags in link.state.items():
            if key[0] == "alike" and key[1] == channel and consumer_tag in tags:
                tags.remove(consumer_tag)


class DelayedDeliveries(Held):
    """Each delivery and basic.get answer reaches the client 200 ms later than the broker
    sent it; a channel's frames keep their order."""

    allowed_by = (CONSUMERS, "a broker pushes deliveries to consumers as it dispatches them; no latency "
                             "is promised (Consumers: the basics), and the AMQP 0-9-1 specification "
                             "orders a channel's frames, not their timing (section 4.7)")
    hold_s = 0.2

    def holds(self, link, cmd):
        return isinstance(cmd.method, (spec.Basic.Deliver, spec.Basic.GetOk, spec.Basic.GetEmpty))


VARIANTS = [SpacedDeliveryTags, RoundRobinFromAnotherConsumer, DelayedDeliveries]
