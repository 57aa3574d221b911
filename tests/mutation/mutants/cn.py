"""Mutants of the CN (connection) rules of the specification. Most rewrite the handshake
as it passes: the proxy sits between the client's protocol header and the broker's
open-ok, so a broker that takes what it should refuse is a tune-ok or start-ok made
acceptable on its way in, and a broker that never answers is a refusal hidden on its way
out (the client's socket held open after the broker closed its own)."""

from __future__ import annotations

import asyncio

from pamqp import commands as spec
from pamqp.heartbeat import Heartbeat

from tests.mutation.mutant_proxy import TO_BROKER, TO_CLIENT
from .base import Mutant, changed, replaced

PROTOCOL_HEADER = b"AMQP\x00\x00\x09\x01"
FRAME_MIN_SIZE = 4096
# How long a hidden refusal keeps the client's socket open after the broker closed its own:
# longer than the suite waits for a refused handshake to end (CONNECT + REPLY).
HELD_OPEN_S = 30.0


def _proposal(link) -> spec.Connection.Tune | None:
    return link.state.get("tune")


def _remember_tune(link, cmd) -> None:
    if isinstance(cmd.method, spec.Connection.Tune):
        link.state["tune"] = cmd.method


class StartAnnouncesAHigherVersion(Mutant):
    """connection.start announces version 0-10, above the 0-9-1 the client's header asked for."""

    breaks = ("CN-01",)

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, spec.Connection.Start):
            return replaced(cmd, changed(cmd.method, version_minor=10))
        return None


class UnknownHeaderTakenForAmqp(Mutant):
    """A protocol header the broker does not speak is taken for 0-9-1's: the broker answers
    it with connection.start instead of its own header and a close."""

    breaks = ("CN-02",)

    def protocol_header(self, link, direction, header):
        return PROTOCOL_HEADER if direction == TO_BROKER else header


class LocalesWithoutEnUs(Mutant):
    """connection.start offers only the fr_FR locale."""

    breaks = ("CN-04",)

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, spec.Connection.Start):
            return replaced(cmd, changed(cmd.method, locales="fr_FR"))
        return None


class UnofferedMechanismTakenAsPlain(Mutant):
    """A start-ok naming a SASL mechanism the broker did not offer is read as PLAIN."""

    breaks = ("CN-05",)

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, spec.Connection.Start):
            link.state["offered"] = str(cmd.method.mechanisms).split()
        return None

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Connection.StartOk) and m.mechanism not in link.state.get("offered", [m.mechanism]):
            return replaced(cmd, changed(m, mechanism="PLAIN"))
        return None


class PasswordNotChecked(Mutant):
    """A known user logs in with any password: a PLAIN start-ok whose password differs from
    the one that user logged in with before (on any connection) is let through."""

    breaks = ("CN-06",)

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Connection.StartOk) and m.mechanism == "PLAIN":
            user = str(m.response).split("\0")[1:2]
            link.state["login"] = (user[0] if user else None, m.response)
            known = link.shared.get("passwords", {}).get(user[0] if user else None)
            if known is not None and known != m.response:
                return replaced(cmd, changed(m, response=known))
        return None

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, spec.Connection.Tune) and link.state.get("login"):
            user, response = link.state["login"]
            link.shared.setdefault("passwords", {}).setdefault(user, response)
        return None


class MinimumSizeStartOkRefused(Mutant):
    """Before tuning, the broker refuses a frame of 4096 octets (its limit is lower): a
    start-ok that large gets connection.close 501."""

    breaks = ("CN-07",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Connection.StartOk) and len(cmd.raw) >= FRAME_MIN_SIZE:
            link.escalate_to_connection_close(501, "FRAME_ERROR - frame too large")
            return []
        return None


class FrameMaxClamped(Mutant):
    """A tune-ok frame-max below 4096 or above the broker's proposal is taken as the nearest
    value the broker allows, and the connection opens."""

    breaks = ("CN-08", "CN-09")

    def from_broker(self, link, cmd):
        _remember_tune(link, cmd)
        return None

    def from_client(self, link, cmd):
        m, tune = cmd.method, _proposal(link)
        if isinstance(m, spec.Connection.TuneOk) and tune is not None and m.frame_max:
            allowed = min(max(m.frame_max, FRAME_MIN_SIZE), tune.frame_max or m.frame_max)
            if allowed != m.frame_max:
                return replaced(cmd, changed(m, frame_max=allowed))
        return None


class ChannelMaxIgnored(Mutant):
    """The channel-max the client agrees in tune-ok is replaced by the broker's own proposal:
    channels above the client's limit open."""

    breaks = ("CN-11",)

    def from_broker(self, link, cmd):
        _remember_tune(link, cmd)
        return None

    def from_client(self, link, cmd):
        m, tune = cmd.method, _proposal(link)
        if isinstance(m, spec.Connection.TuneOk) and tune is not None and tune.channel_max \
                and m.channel_max and m.channel_max < tune.channel_max:
            return replaced(cmd, changed(m, channel_max=tune.channel_max))
        return None


class HandshakeRefusalHidden(Mutant):
    """A broker that refuses a handshake never says so: its connection.close before open-ok
    is hidden, and after it closes its socket the client's socket stays open, silent."""

    breaks = ("CN-05", "CN-06", "CN-08", "CN-09", "CN-10", "CN-17", "CN-20")

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, spec.Connection.OpenOk):
            link.state["opened"] = True
        elif isinstance(cmd.method, spec.Connection.Close) and not link.state.get("opened"):
            link.to_broker(0, spec.Connection.CloseOk())
            return []
        return None

    async def on_eof(self, link, direction):
        if direction == TO_CLIENT and not link.state.get("opened"):
            await asyncio.sleep(HELD_OPEN_S)  # until the client gives up and closes its side


class BrokerHeartbeatsNeverSent(Mutant):
    """The broker sends no heartbeat frames, whatever interval was agreed."""

    breaks = ("CN-12",)

    def from_broker(self, link, cmd):
        return [] if isinstance(cmd.method, Heartbeat) else None


class SilentClientKept(Mutant):
    """The broker never drops a silent client: the heartbeat a client asks for in tune-ok
    never reaches it (0 instead)."""

    breaks = ("CN-13",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Connection.TuneOk) and cmd.method.heartbeat:
            return replaced(cmd, changed(cmd.method, heartbeat=0))
        return None


class HeartbeatRefusedWhenOff(Mutant):
    """A client heartbeat on a connection that agreed heartbeat 0 is refused with
    connection.close 505."""

    breaks = ("CN-14",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Connection.TuneOk):
            link.state["heartbeat"] = cmd.method.heartbeat
        elif isinstance(cmd.method, Heartbeat) and link.state.get("heartbeat") == 0:
            link.escalate_to_connection_close(505, "UNEXPECTED_FRAME - heartbeats are off")
            return []
        return None


class CloseOkWithheld(Mutant):
    """A client's connection.close is never answered with close-ok."""

    breaks = ("CN-15",)

    def from_broker(self, link, cmd):
        return [] if isinstance(cmd.method, spec.Connection.CloseOk) else None


class AnswersAfterItsClose(Mutant):
    """After sending connection.close the broker still answers a channel.open with open-ok."""

    breaks = ("CN-16",)

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, spec.Connection.Close):
            link.state["closing"] = True
        return None

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Channel.Open) and link.state.get("closing"):
            link.to_client(cmd.channel, spec.Channel.OpenOk())
            return []
        return None


class VirtualHostsMerged(Mutant):
    """Every connection opens the first virtual host any connection opened, whatever its
    connection.open names: one namespace for all."""

    breaks = ("CN-17", "CN-19")

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Connection.Open):
            first = link.shared.get("first virtual host")
            link.state["asked"] = m.virtual_host
            if first is not None and m.virtual_host != first:
                return replaced(cmd, changed(m, virtual_host=first))
        return None

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, spec.Connection.OpenOk) and "asked" in link.state:
            link.shared.setdefault("first virtual host", link.state["asked"])
        return None


class OutOfOrderHandshakeIgnored(Mutant):
    """Handshake methods out of order or repeated are ignored: a second start-ok, tune-ok or
    connection.open before open-ok, and channel.open before connection.open, never reach the
    broker; connection.open after open-ok is answered open-ok again."""

    breaks = ("CN-20",)

    def from_client(self, link, cmd):
        m, seen = cmd.method, link.state.setdefault("handshake", set())
        if isinstance(m, (spec.Connection.StartOk, spec.Connection.TuneOk, spec.Connection.Open)):
            if type(m) in seen:
                if link.state.get("opened"):
                    link.to_client(0, spec.Connection.OpenOk())
                return []
            seen.add(type(m))
        elif isinstance(m, spec.Channel.Open) and spec.Connection.Open not in seen:
            return []
        return None

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, spec.Connection.OpenOk):
            link.state["opened"] = True
        return None


MUTANTS: tuple[type[Mutant], ...] = (
    StartAnnouncesAHigherVersion, UnknownHeaderTakenForAmqp, LocalesWithoutEnUs, UnofferedMechanismTakenAsPlain,
    PasswordNotChecked, MinimumSizeStartOkRefused, FrameMaxClamped, ChannelMaxIgnored, HandshakeRefusalHidden,
    BrokerHeartbeatsNeverSent, SilentClientKept, HeartbeatRefusedWhenOff, CloseOkWithheld, AnswersAfterItsClose,
    VirtualHostsMerged, OutOfOrderHandshakeIgnored,
)
# The MUST rules of this area no proxy can break, and why.
NOT_EXPRESSIBLE: dict[str, str] = {}
