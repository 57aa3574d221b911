"""Variants of how a broker sends publisher confirms."""

from __future__ import annotations

from pamqp import commands as spec

from amqp_conformance.fixtures.core.rules import CONFIRMS as CONFIRMS_GUIDE
from tests.frame_proxy import CONFIRMS, Command, Link, command
from .base import Held, Variant


def is_confirm(link: Link, cmd: Command) -> bool:
    return isinstance(cmd.method, CONFIRMS) and link.tracker.channel(cmd.channel).mode == "confirm"


def confirmed_numbers(link: Link, cmd: Command) -> list[int]:
    """The publish sequence numbers a broker confirm resolves (read before the tracker
    records it: a multiple=true confirm covers those still unresolved up to its tag)."""
    m, state = cmd.method, link.tracker.channel(cmd.channel)
    return [n for n in state.unresolved if n <= m.delivery_tag] if m.multiple else [m.delivery_tag]


class CoalescedConfirms(Held):
    """Confirms are held for 20 ms and sent as one multiple=true ack (or nack) for the
    highest number of a run, also when the run is a single publish; numbers a multiple
    confirm may not cover (an earlier publish still unconfirmed) are confirmed singly."""

    allowed_by = (CONFIRMS_GUIDE, "the broker may set multiple on basic.ack or basic.nack to confirm "
                                  "every publish up to and including the given sequence number at once "
                                  "(Publisher Confirms)")
    hold_s = 0.02

    def holds(self, link, cmd):
        return is_confirm(link, cmd)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Channel.Open):  # a number used again: counting starts afresh
            link.state.pop(("told", cmd.channel), None)
        return None

    def kept(self, link, cmd):
        return type(cmd.method), confirmed_numbers(link, cmd)

    def release(self, link, channel, kept):
        told = link.state.setdefault(("told", channel), set())  # numbers the client has seen confirmed
        published = link.tracker.channel(channel).routing_keys
        out = []
        for kind, numbers in kept:
            if not numbers:
                continue
            top = max(numbers)
            unconfirmed_below = {n for n in published if n <= top and n not in told}
            if unconfirmed_below == set(numbers):
                out.append(command(channel, kind(delivery_tag=top, multiple=True)))
            else:
                out += [command(channel, kind(delivery_tag=n, multiple=False)) for n in sorted(numbers)]
            told.update(numbers)
        return out


class SplitMultipleConfirms(Variant):
    """A multiple=true confirm is sent as one single confirm per publish it covers, in
    ascending order."""

    allowed_by = (CONFIRMS_GUIDE, "multiple is the broker's option to confirm several publishes in one "
                                  "frame; confirming each on its own says the same (Publisher Confirms)")

    def from_broker(self, link, cmd):
        if is_confirm(link, cmd) and cmd.method.multiple:
            numbers = confirmed_numbers(link, cmd)
            if numbers:
                kind = type(cmd.method)
                return [command(cmd.channel, kind(delivery_tag=n, multiple=False)) for n in numbers]
        return None


class DelayedConfirms(Held):
    """Each confirm reaches the client 250 ms later than the broker sent it (a twelfth of
    the suite's reply bound); a channel's frames keep their order."""

    allowed_by = (CONFIRMS_GUIDE, "confirms are sent asynchronously, when the broker has handled the "
                                  "message, with no promise of how soon (Publisher Confirms: latency)")
    hold_s = 0.25

    def holds(self, link, cmd):
        return is_confirm(link, cmd)


VARIANTS = [CoalescedConfirms, SplitMultipleConfirms, DelayedConfirms]
