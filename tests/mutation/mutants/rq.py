"""Mutants of the RQ rules (negative acknowledgements and requeue)."""

from __future__ import annotations

from pamqp import commands as spec

from tests.mutation.mutant_proxy import command
from .base import Mutant, changed, replaced


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


MUTANTS = [
    RequeueFlagFlipped,
    RequeueFalseRequeues,
    NackMultipleIgnored,
    NackAllDrops,
    NackMultipleDeadLettersOnlyItsTag,
]
