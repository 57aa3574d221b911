"""Mutants of the QOS rules (prefetch)."""

from __future__ import annotations

from pamqp import commands as spec

from tests.mutation.mutant_proxy import TO_CLIENT, command
from .base import Mutant, changed, replaced, SETTLES


class PrefetchIgnored(Mutant):
    """basic.qos is answered but the limit is never applied (the broker sees prefetch 0)."""

    breaks = ("QOS-01", "QOS-07", "FLT-09")

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


class LoweredPrefetchIgnored(Mutant):
    """A basic.qos that lowers the prefetch of a channel with consumers is answered
    qos-ok and never reaches the broker: the old, higher limit stays in force, for the
    channel and for consumers started later."""

    breaks = ("QOS-12",)

    def from_client(self, link, cmd):
        m, state = cmd.method, link.tracker.channel(cmd.channel)
        if isinstance(m, spec.Basic.Qos) and state.consumers and 0 < m.prefetch_count < state.prefetch:
            link.to_client(cmd.channel, spec.Basic.QosOk())
            return []
        return None


class RaisedPrefetchIgnored(Mutant):
    """A basic.qos that raises the prefetch of a channel with consumers is answered qos-ok
    and never reaches the broker: the old, lower limit stays in force, for the running
    consumers and for consumers started later."""

    breaks = ("QOS-10",)

    def from_client(self, link, cmd):
        m, state = cmd.method, link.tracker.channel(cmd.channel)
        if isinstance(m, spec.Basic.Qos) and state.consumers and state.prefetch and m.prefetch_count > state.prefetch:
            link.to_client(cmd.channel, spec.Basic.QosOk())
            return []
        return None


class LoweredPrefetchStarvesLaterConsumers(Mutant):
    """Once a basic.qos lowered the prefetch of a channel with consumers, a consumer
    registered on it afterwards is sent nothing (a broker that keeps counting the settled
    overshoot against the new limit): the proxy drops every delivery to it."""

    breaks = ("QOS-12",)

    def from_client(self, link, cmd):
        m, state = cmd.method, link.tracker.channel(cmd.channel)
        if isinstance(m, spec.Basic.Qos) and state.consumers and 0 < m.prefetch_count < state.prefetch:
            link.state[("lowered", cmd.channel)] = True
        return None

    def from_broker(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Basic.ConsumeOk) and link.state.get(("lowered", cmd.channel)):
            link.state.setdefault(("starved", cmd.channel), set()).add(m.consumer_tag)
        elif isinstance(m, spec.Basic.Deliver) and m.consumer_tag in link.state.get(("starved", cmd.channel), ()):
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


MUTANTS = [
    PrefetchIgnored,
    LoweredPrefetchIgnored,
    LoweredPrefetchStarvesLaterConsumers,
    RaisedPrefetchIgnored,
    PrefetchZeroLimits,
    PrefetchLimitsAutoAck,
    PrefetchLimitsGet,
    OnlyLowestAckFreesASlot,
    TransactedSettlesApplyAtOnce,
]
