"""Variants of the connection and its framing: texts, frame sizes, heartbeats, capabilities."""

from __future__ import annotations

import asyncio

from pamqp import commands as spec
from pamqp.body import ContentBody
from pamqp.heartbeat import Heartbeat

from amqp_conformance.fixtures.wire.frames import Command
from amqp_conformance.fixtures.wire.target import FRAME_MIN_SIZE
from tests.frame_proxy import TO_CLIENT, changed, replaced
from .base import AMQP_SPEC, Variant

CLOSES = (spec.Channel.Close, spec.Connection.Close)


class RewordedReplyTexts(Variant):
    """Every reply text the broker sends (channel.close, connection.close, basic.return)
    is replaced by words of the variant's own; the reply code, class and method stay."""

    allowed_by = (AMQP_SPEC, "reply-text is localised text for logs and people; the reply code is what "
                             "a peer acts on (domain reply-text)")
    texts_only = True

    def from_broker(self, link, cmd):
        m = cmd.method
        if isinstance(m, (*CLOSES, spec.Basic.Return)):
            return replaced(cmd, changed(m, reply_text=f"reply {m.reply_code}, worded by a conforming variant"))
        return None


CONTENT_TO_CLIENT = (spec.Basic.Deliver, spec.Basic.GetOk, spec.Basic.Return)


class OneOctetBodyFrames(Variant):
    """Every message body the broker sends is cut into body frames of one octet each."""

    allowed_by = (AMQP_SPEC, "a content body is sent as one or more body frames, none larger than "
                             "frame-max; how many is the sender's choice (section 4.2.6.2)")

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, CONTENT_TO_CLIENT) and len(cmd.body) > 1:
            body = cmd.body
            return [Command(cmd.channel, cmd.method, cmd.header, [ContentBody(body[i:i + 1]) for i in range(len(body))])]
        return None


class LowestFrameMax(Variant):
    """connection.tune proposes the smallest frame-max the specification allows (4096
    octets), so both peers cut content into frames that small."""

    allowed_by = (AMQP_SPEC, "the server proposes frame-max in connection.tune; any value down to the "
                             "frame minimum of 4096 octets is valid (section 4.2.3; connection.tune frame-max)")

    def from_broker(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Connection.Tune) and (m.frame_max == 0 or m.frame_max > FRAME_MIN_SIZE):
            return replaced(cmd, changed(m, frame_max=FRAME_MIN_SIZE))
        return None

    def from_client(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Connection.TuneOk) and not 0 < m.frame_max <= FRAME_MIN_SIZE:
            # A broker that proposed 4096 refuses more (tune-ok frame-max [upper-limit]) before
            # open-ok, by closing the socket (section 2.2.4); the broker behind the proxy would take it.
            link.hang_up()
            return []
        return None


class FrequentHeartbeats(Variant):
    """From connection.tune-ok on, a heartbeat frame goes to the client every 200 ms,
    whatever heartbeat interval (or none) was agreed."""

    allowed_by = (AMQP_SPEC, "the server starts sending heartbeats once it has tune-ok, and a peer that "
                             "does not use heartbeats discards them without error (section 4.2.7)")
    every_s = 0.2

    def from_client(self, link, cmd):
        if isinstance(cmd.method, spec.Connection.TuneOk):
            asyncio.get_running_loop().call_later(self.every_s, self._beat, link)
        return None

    def _beat(self, link):
        if link.open:
            link.send(TO_CLIENT, Command(0, Heartbeat()))
            asyncio.get_running_loop().call_later(self.every_s, self._beat, link)


class OtherCapabilities(Variant):
    """connection.start advertises only the capabilities of the extensions the catalogue's
    rules use (publisher confirms, basic.nack, consumer cancel notification), plus one no
    client knows; consumer_priorities and the rest are not advertised."""

    allowed_by = (AMQP_SPEC, "server-properties is a free table of the server's own; a client ignores "
                             "what it does not know, and no guide asks a broker to advertise consumer "
                             "priorities (connection.start server-properties)")
    kept = ("publisher_confirms", "basic.nack", "consumer_cancel_notify")

    def from_broker(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Connection.Start):
            capabilities = dict((m.server_properties or {}).get("capabilities") or {})
            advertised = {name: capabilities[name] for name in self.kept if name in capabilities}
            advertised["x-conforming-variant"] = True
            return replaced(cmd, changed(m, server_properties={**m.server_properties, "capabilities": advertised}))
        return None


class InterleavedChannelFrames(Variant):
    """The broker's frames are gathered for 5 ms and sent with the frames of different
    channels interleaved one by one (a message's header and body frames among another
    channel's frames); each channel's own frames keep their order."""

    allowed_by = (AMQP_SPEC, "frames of different channels may be mixed; only a channel's own content "
                             "frames must follow its method frame without other frames of that channel "
                             "between them (section 4.2.6)")
    hold_s = 0.005

    def from_broker(self, link, cmd):
        if cmd.channel == 0:
            self._flush(link)
            return None
        held = link.state.setdefault("held", [])
        if not held:
            asyncio.get_running_loop().call_later(self.hold_s, self._flush, link)
        held.append(cmd)
        return []

    async def on_eof(self, link, direction):
        if direction == TO_CLIENT:
            self._flush(link)

    @staticmethod
    def _flush(link):
        queues: dict[int, list[bytes]] = {}
        for cmd in link.state.pop("held", []):
            queues.setdefault(cmd.channel, []).extend(cmd.wire_frames())
        while queues:
            for channel in list(queues):
                link.send_bytes(TO_CLIENT, queues[channel].pop(0))
                if not queues[channel]:
                    del queues[channel]


VARIANTS = [RewordedReplyTexts, OneOctetBodyFrames, LowestFrameMax, FrequentHeartbeats, OtherCapabilities,
            InterleavedChannelFrames]
