"""Mutants of the FLT rules (data safety under faults)."""

from __future__ import annotations

import asyncio

from pamqp import commands as spec

from tests.mutation.mutant_proxy import TO_BROKER
from .base import Mutant


class DeliveriesLost(Mutant):
    """Every fifth push delivery vanishes (acked to the broker by the proxy)."""

    breaks = ("FLT-01", "FLT-09")

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Deliver):
            count = link.state["deliveries"] = link.state.get("deliveries", 0) + 1
            if count % 5 == 0:
                if not link.tracker.channel(cmd.channel).consumers.get(cmd.method.consumer_tag, False):
                    link.to_broker(cmd.channel, spec.Basic.Ack(delivery_tag=cmd.method.delivery_tag))
                return []
        return None


class DeliveriesLostOnEveryOtherQueue(Mutant):
    """A broker that loses a message on some attempts only: of the queues it pushes
    deliveries from (by name, counted across connections), the first, the third, the fifth
    ... each lose one delivery, the fifth pushed from it (acked to the broker by the proxy
    for a manual-ack consumer); nothing else is lost. A case rerun afterwards meets no loss:
    it must stay a finding (fail, or fail marked flaky), never turn into a pass."""

    breaks = ("FLT-09",)
    lost = 5  # the delivery of a lossy queue that vanishes

    def from_broker(self, link, cmd):
        m = cmd.method
        if not isinstance(m, spec.Basic.Deliver):
            return None
        queues = link.shared.setdefault("pushed per queue", {})  # routing key -> [its number, pushed so far]
        number, pushed = queues.setdefault(m.routing_key, [len(queues) + 1, 0])
        queues[m.routing_key][1] = pushed = pushed + 1
        if number % 2 == 0 or pushed != self.lost:
            return None
        if not link.tracker.channel(cmd.channel).consumers.get(m.consumer_tag, False):
            link.to_broker(cmd.channel, spec.Basic.Ack(delivery_tag=m.delivery_tag))
        return []


class AutoAckBacklogReordered(Mutant):
    """An automatic-ack consumer's deliveries come out of order once a backlog builds:
    every 100th delivery to it is held back and sent after the one that follows."""

    breaks = ("FLT-09",)

    def from_broker(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Basic.Deliver) and link.tracker.channel(cmd.channel).consumers.get(m.consumer_tag):
            held = link.state.pop(("held", cmd.channel), None)
            if held is not None:
                return [cmd, held]
            count = link.state["auto-ack deliveries"] = link.state.get("auto-ack deliveries", 0) + 1
            if count % 100 == 0:
                link.state[("held", cmd.channel)] = cmd
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


MUTANTS = [
    DeliveriesLost,
    DeliveriesLostOnEveryOtherQueue,
    AutoAckBacklogReordered,
    AcksLostWhenSliced,
    AcksBeforeCloseLost,
]
