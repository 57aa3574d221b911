"""Mutants of the FR (framing) rules of the specification.

Two kinds: a proxy that repairs or drops a bad frame before it reaches the broker (the
broker never sees the fault, so the connection goes on: the FR rule that hides it must
fail), and a broker that answers bad input badly (another code, a 541, a bystander's
connection dropped), which the codes and the invariants after bad input must catch."""

from __future__ import annotations

from pamqp import commands as spec
from pamqp.body import ContentBody
from pamqp.header import ContentHeader
from pamqp.heartbeat import Heartbeat

from amqp_conformance.fixtures.wire.frames import FRAME_END, FRAME_HEADER
from tests.mutation.mutant_proxy import TO_BROKER, Command
from .base import Mutant, changed, replaced

SERVER_ONLY = (spec.Basic.Deliver, spec.Basic.GetOk, spec.Connection.Start)


class FrameEndRepaired(Mutant):
    """A frame whose end octet is not 0xCE is repaired (0xCE put in) before the broker
    reads it: a broker that does not check frame-end."""

    breaks = ("FR-01",)

    def unparsed(self, link, direction, raw):
        if direction == TO_BROKER and len(raw) > FRAME_HEADER.size and raw[-1] != FRAME_END:
            return raw[:-1] + bytes([FRAME_END])
        return None


class UnreadableFramesIgnored(Mutant):
    """What cannot be read as a frame never reaches the broker: a wrong end octet, an
    undefined frame type, a size field beyond any frame-max, an unknown method id or
    arguments that do not decode: a broker that skips what it cannot read."""

    breaks = ("FR-01", "FR-02", "FR-03", "FR-17", "FR-18")

    def unparsed(self, link, direction, raw):
        return b"" if direction == TO_BROKER else None


class MisplacedFramesIgnored(Mutant):
    """A heartbeat or a connection method off channel 0, another class's method or a
    content frame on channel 0, and a method only the server sends are dropped: a broker
    that ignores frames out of place."""

    breaks = ("FR-04", "FR-05", "FR-06", "FR-07", "FR-18")

    def from_client(self, link, cmd):
        m = cmd.method
        of_the_connection = isinstance(m, Heartbeat) or type(m).__qualname__.startswith("Connection.")
        if (cmd.channel != 0) == of_the_connection or isinstance(m, SERVER_ONLY):
            return []
        return None


class ContentRepaired(Mutant):
    """Every publish is passed on re-encoded from what the proxy assembled: a header of
    another class becomes Basic's, and what does not belong to a content is dropped with
    it: a broker that takes any content sequence as it comes."""

    breaks = ("FR-09", "FR-10", "FR-11", "FR-12", "FR-13")

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Basic.Publish):
            header = cmd.header or ContentHeader(0, len(cmd.body), spec.Basic.Properties())
            body = cmd.body[:header.body_size]
            return [Command(cmd.channel, m, ContentHeader(0, len(body), header.properties),
                            [ContentBody(body)] if body else [])]
        if isinstance(m, (ContentHeader, ContentBody)):
            return []  # a content frame with no publish before it
        return None

    def unparsed(self, link, direction, raw):
        return b"" if direction == TO_BROKER else None  # a content cut short by another frame


class ConnectionExceptionCodesShifted(Mutant):
    """The broker's connection exceptions 503, 504 and 505 reach the client as 504, 505
    and 506: a broker that picks the wrong code for each framing error."""

    breaks = ("FR-04", "FR-05", "FR-07", "FR-08", "FR-09", "FR-10", "FR-11", "FR-12", "FR-13")

    def from_broker(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Connection.Close) and m.reply_code in (503, 504, 505):
            return replaced(cmd, changed(m, reply_code=m.reply_code + 1))
        return None


class MalformedTableIsAnInternalError(Mutant):
    """Arguments that do not decode (501, 502) end the connection with 541 INTERNAL_ERROR:
    a broker that crashes on a malformed table."""

    breaks = ("FR-17",)
    hard_error = True

    def from_broker(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Connection.Close) and m.reply_code in (501, 502) and "decode" in m.reply_text:
            return replaced(cmd, changed(m, reply_code=541, reply_text="INTERNAL_ERROR - malformed table"))
        return None


class BystandersDroppedAfterABadFrame(Mutant):
    """After the broker ends one connection for a framing error (a 50x connection.close),
    every other connection through the proxy is dropped: a broker whose failure on one
    connection takes the others with it."""

    breaks = ("FR-01", "FR-02", "FR-03", "FR-05")

    def from_broker(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Connection.Close) and 500 <= m.reply_code < 510:
            for other in list(link.proxy.links):
                if other is not link and other.open:
                    for writer in other._writers.values():
                        writer.transport.abort()
        return None


class BodyFramesMerged(Mutant):
    """A delivery's body frames reach the client as one frame, however large: a broker
    that ignores frame-max when it sends content."""

    breaks = ("FR-16",)

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, (spec.Basic.Deliver, spec.Basic.GetOk)) and len(cmd.bodies) > 1:
            return [Command(cmd.channel, cmd.method, cmd.header, [ContentBody(cmd.body)])]
        return None


class BodyInManyFramesCut(Mutant):
    """A published body that came in more than one body frame loses its last octet:
    a broker that reassembles contents wrongly."""

    breaks = ("FR-15",)

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Basic.Publish) and len(cmd.bodies) > 1:
            body = cmd.body[:-1]
            return [Command(cmd.channel, cmd.method, ContentHeader(0, len(body), cmd.header.properties),
                            [ContentBody(body)])]
        return None


class ProtocolHeaderReadOnce(Mutant):
    """A broker that reads the 8-octet protocol header with one read: a header that came in
    pieces is judged on the first piece alone, which is no header it speaks (the octets
    after it read as zeros), so the broker answers with its own header and closes. (Issue
    46 saw a broker at a URL do this; garagemq fails a split header too.) FLT-05's slicer
    copies split every header with a pause, so each fails at its handshake."""

    breaks = ("FLT-05",)

    def protocol_header(self, link, direction, header):
        if direction == TO_BROKER and link.state.get("protocol header reads", 1) > 1:
            return header[:4] + bytes(4)
        return header


MUTANTS: tuple[type[Mutant], ...] = (FrameEndRepaired, UnreadableFramesIgnored, MisplacedFramesIgnored,
                                     ContentRepaired, ConnectionExceptionCodesShifted,
                                     MalformedTableIsAnInternalError, BystandersDroppedAfterABadFrame,
                                     BodyFramesMerged, BodyInManyFramesCut, ProtocolHeaderReadOnce)
# The MUST rules of this area no proxy can break, and why.
NOT_EXPRESSIBLE: dict[str, str] = {
    "FR-14": "the proxy assembles each channel's content before any rewrite sees it, so the interleaving of "
             "channels inside a content is invisible to a rewrite (and re-sent in order)",
}
