"""The frame engine of the suite's broker doubles: a TCP proxy in front of a real broker that
parses the frames of both directions with pamqp and lets one rewrite drop, change, delay or
invent commands. Two kinds of rewrite use it: a mutation (tests/mutation/mutants/) makes the
pair behave like a broker that breaks one rule; a conforming variant (tests/variants/) makes
it behave like a broker that makes another choice the guides allow.

What it guarantees, so that a verdict through it means something:
  - frames are cut out of a byte stream, however TCP splits or joins them;
  - a content-bearing method (publish, deliver, get-ok, return) travels as one Command
    with its header and body frames, so a rewrite never splits a message;
  - a Command the rewrite leaves alone goes on as the peer's own bytes; only what a
    rewrite touches is re-encoded. With the pass-through rewrite the proxy changes nothing
    (the pass-through control of tests/mutation/test_mutation_score.py checks that);
  - every connection has a Tracker: what each channel is (tx, confirm), its consumers,
    its deliveries and what the client settled, the publishes and their sequence numbers.
    Rewrites read it; it records what the *client* and the *broker* sent, before any
    rewrite.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from pamqp import commands as spec
from pamqp import frame as pamqp_frame
from pamqp.body import ContentBody
from pamqp.header import ContentHeader

from amqp_conformance.fixtures.wire.frames import FRAME_HEADER, Assembler, Command
from amqp_conformance.fixtures.core.harness_lag import LoopWatch
from amqp_conformance.fixtures.core.ports import free_port

PROTOCOL_HEADER_SIZE = 8
TO_CLIENT, TO_BROKER = "to client", "to broker"


def command(channel: int, method: Any) -> Command:
    """A new command the proxy invents (no raw bytes: it is encoded)."""
    return Command(channel, method)


def changed(method, **fields):
    """A copy of a pamqp method with some fields changed (the original stays as the
    client or broker sent it, for the tracker)."""
    return type(method)(**{**dict(method), **fields})


def replaced(cmd: Command, method) -> list[Command]:
    """`cmd` with another method frame, its content (if any) kept."""
    return [Command(cmd.channel, method, cmd.header, cmd.bodies)]


SETTLES = (spec.Basic.Ack, spec.Basic.Nack, spec.Basic.Reject)  # the client's, of deliveries
CONFIRMS = (spec.Basic.Ack, spec.Basic.Nack)  # the broker's, of publishes on a confirm channel


@dataclass
class Delivered:
    tag: int
    no_ack: bool
    consumer_tag: str | None  # None for basic.get
    redelivered: bool
    body: bytes


@dataclass
class ChannelState:
    """One channel, as the client and the broker have spoken about it so far."""

    mode: str | None = None  # "tx" or "confirm"
    prefetch: int = 0
    consumers: dict[str, bool] = field(default_factory=dict)  # consumer tag -> no_ack
    pending_consumes: list[bool] = field(default_factory=list)  # no_ack of consumes awaiting consume-ok
    pending_get_no_ack: list[bool] = field(default_factory=list)
    deliveries: dict[int, Delivered] = field(default_factory=dict)  # broker tag -> delivery
    settled: dict[int, str] = field(default_factory=dict)  # tag -> "ack"/"nack"/"reject"(+requeue)
    requeued: set[int] = field(default_factory=set)  # tags the client requeued (nack/reject requeue)
    published_before_confirm: int = 0
    next_seq: int = 0  # next publish sequence number in confirm mode
    routing_keys: dict[int, str] = field(default_factory=dict)  # seq -> routing key
    resolved: set[int] = field(default_factory=set)  # confirm sequence numbers the broker resolved

    @property
    def max_tag(self) -> int:
        return max(self.deliveries, default=0)

    @property
    def outstanding(self) -> list[int]:
        """Manual-ack deliveries the client has not settled."""
        return sorted(t for t, d in self.deliveries.items() if not d.no_ack and t not in self.settled)

    @property
    def unresolved(self) -> list[int]:
        return [seq for seq in self.routing_keys if seq not in self.resolved]


class Tracker:
    """What one proxied connection has said; updated after each rewrite hook."""

    def __init__(self) -> None:
        self.channels: dict[int, ChannelState] = {}
        self.capabilities: dict = {}

    def channel(self, number: int) -> ChannelState:
        return self.channels.setdefault(number, ChannelState())

    def from_client(self, cmd: Command) -> None:
        m, ch = cmd.method, self.channel(cmd.channel)
        if isinstance(m, spec.Connection.StartOk):
            self.capabilities = dict((m.client_properties or {}).get("capabilities") or {})
        elif isinstance(m, spec.Channel.Open):
            self.channels[cmd.channel] = ChannelState()
        elif isinstance(m, spec.Tx.Select):
            ch.mode = ch.mode or "tx"
        elif isinstance(m, spec.Confirm.Select):
            if ch.mode is None:
                ch.mode, ch.next_seq = "confirm", 1
        elif isinstance(m, spec.Basic.Qos):
            ch.prefetch = m.prefetch_count
        elif isinstance(m, spec.Basic.Consume):
            ch.pending_consumes.append(m.no_ack)
        elif isinstance(m, spec.Basic.Get):
            ch.pending_get_no_ack.append(m.no_ack)
        elif isinstance(m, spec.Basic.Publish):
            if ch.mode == "confirm":
                ch.routing_keys[ch.next_seq] = m.routing_key
                ch.next_seq += 1
            else:
                ch.published_before_confirm += 1
        elif isinstance(m, (spec.Basic.Ack, spec.Basic.Nack, spec.Basic.Reject)):
            requeue = getattr(m, "requeue", False)
            kind = type(m).__name__.lower() + ("(requeue)" if requeue else "")
            tags = ch.outstanding if m.delivery_tag == 0 and getattr(m, "multiple", False) else \
                [t for t in ch.outstanding if t <= m.delivery_tag] if getattr(m, "multiple", False) else \
                [m.delivery_tag]
            for tag in tags:
                ch.settled.setdefault(tag, kind)
                if requeue:
                    ch.requeued.add(tag)
        elif isinstance(m, spec.Basic.Recover):
            for tag in ch.outstanding:
                ch.settled[tag] = "recover"
                ch.requeued.add(tag)
        elif isinstance(m, spec.Basic.Cancel):
            ch.consumers.pop(m.consumer_tag, None)

    def from_broker(self, cmd: Command) -> None:
        m, ch = cmd.method, self.channel(cmd.channel)
        if isinstance(m, spec.Basic.ConsumeOk):
            no_ack = ch.pending_consumes.pop(0) if ch.pending_consumes else False
            ch.consumers[m.consumer_tag] = no_ack
        elif isinstance(m, spec.Basic.Deliver):
            ch.deliveries[m.delivery_tag] = Delivered(m.delivery_tag, ch.consumers.get(m.consumer_tag, False),
                                                      m.consumer_tag, m.redelivered, cmd.body)
        elif isinstance(m, spec.Basic.GetOk):
            no_ack = ch.pending_get_no_ack.pop(0) if ch.pending_get_no_ack else False
            ch.deliveries[m.delivery_tag] = Delivered(m.delivery_tag, no_ack, None, m.redelivered, cmd.body)
        elif isinstance(m, spec.Basic.GetEmpty):
            if ch.pending_get_no_ack:
                ch.pending_get_no_ack.pop(0)
        elif isinstance(m, (spec.Basic.Ack, spec.Basic.Nack)) and ch.mode == "confirm":
            tags = [s for s in ch.unresolved if s <= m.delivery_tag] if m.multiple else [m.delivery_tag]
            ch.resolved.update(tags)
        elif isinstance(m, spec.Basic.CancelOk):
            ch.consumers.pop(m.consumer_tag, None)


class Link:
    """One client connection through the proxy, and its connection to the broker."""

    _ids = itertools.count(1)

    def __init__(self, proxy: "FrameProxy", client_writer, broker_writer):
        self.id = next(self._ids)
        self.proxy = proxy
        self.shared = proxy.shared  # state a rewrite keeps across connections
        self.tracker = Tracker()
        self.state: dict = {}  # a rewrite's own per-connection state
        self._writers = {TO_CLIENT: client_writer, TO_BROKER: broker_writer}
        self._swallow: dict[tuple[str, int], list[type | tuple[type, ...]]] = {}
        # The client's frame-max (its tune-ok): a larger size field is not waited for.
        self.frame_max = UNFRAMED_ABOVE

    # -- what rewrites call -----------------------------------------------------------------
    def to_client(self, channel: int, method: Any) -> None:
        self.send(TO_CLIENT, command(channel, method))

    def to_broker(self, channel: int, method: Any) -> None:
        self.send(TO_BROKER, command(channel, method))

    def send(self, direction: str, cmd: Command, *, raw: bool = False) -> None:
        """Send a command: as its own bytes when `raw` (unchanged), else encoded."""
        self.send_bytes(direction, cmd.raw if raw and cmd.raw else cmd.encode())

    def send_bytes(self, direction: str, data: bytes) -> None:
        """Send frames already marshalled (a rewrite that orders single frames itself)."""
        writer = self._writers[direction]
        if not writer.is_closing():
            writer.write(data)

    @property
    def open(self) -> bool:
        """Both sides of the link still take bytes."""
        return not any(writer.is_closing() for writer in self._writers.values())

    def swallow(self, direction: str, channel: int, kind: type | tuple[type, ...]) -> None:
        """Drop the next `kind` on `channel` travelling in `direction` (the reply to a
        method the proxy sent itself; a tuple when it may be one of several)."""
        self._swallow.setdefault((direction, channel), []).append(kind)

    def hide_channel_close(self, channel: int) -> None:
        """The broker closed `channel`; the client must not know. Confirm the close to
        the broker and open the channel again under the same number, so the client's
        next frames find an open channel (as on a broker that never closed it)."""
        self.to_broker(channel, spec.Channel.CloseOk())
        self.to_broker(channel, spec.Channel.Open())
        self.swallow(TO_CLIENT, channel, spec.Channel.OpenOk)

    def fake_channel_close(self, channel: int, code: int, text: str) -> None:
        """Close `channel` towards the client with an error the broker never raised,
        and close it cleanly at the broker."""
        self.to_client(channel, spec.Channel.Close(reply_code=code, reply_text=text, class_id=0, method_id=0))
        self.swallow(TO_BROKER, channel, spec.Channel.CloseOk)
        self.to_broker(channel, spec.Channel.Close(reply_code=200, reply_text="closed by the proxy",
                                                   class_id=0, method_id=0))
        self.swallow(TO_CLIENT, channel, spec.Channel.CloseOk)

    def hang_up(self) -> None:
        """End both TCP connections with nothing more sent (how a broker refuses before
        open-ok: it closes the socket, section 2.2.4)."""
        for writer in self._writers.values():
            writer.close()

    def escalate_to_connection_close(self, code: int, text: str) -> None:
        """Answer the client with a connection.close; the broker connection ends too."""
        self.to_client(0, spec.Connection.Close(reply_code=code, reply_text=text, class_id=0, method_id=0))
        self.state["escalated"] = True

    # -- the pumps ---------------------------------------------------------------------------
    def _swallowed(self, direction: str, cmd: Command) -> bool:
        pending = self._swallow.get((direction, cmd.channel))
        if pending and isinstance(cmd.method, pending[0]):
            pending.pop(0)
            return True
        return False

    async def pump(self, reader, direction: str) -> None:
        """Cut frames out of the byte stream of one direction and hand each command to
        the rewrite. The client's protocol header goes on raw."""
        rewrite = self.proxy.rewrite
        buffer = bytearray()
        if direction == TO_BROKER:
            reads = 0  # how many reads the client's header took (a split header: more than one)
            while len(buffer) < PROTOCOL_HEADER_SIZE:
                chunk = await _read(reader)
                if not chunk:
                    return
                buffer += chunk
                reads += 1
            self.state["protocol header reads"] = reads
            self._writers[TO_BROKER].write(rewrite.protocol_header(self, TO_BROKER, bytes(buffer[:PROTOCOL_HEADER_SIZE])))
            del buffer[:PROTOCOL_HEADER_SIZE]
        else:
            # A broker that does not speak the protocol the client's header asked for answers
            # with a protocol header of its own (then closes): that goes on raw too.
            while len(buffer) < 4 or (buffer[:4] == b"AMQP" and len(buffer) < PROTOCOL_HEADER_SIZE):
                chunk = await _read(reader)
                if not chunk:
                    self.send_bytes(TO_CLIENT, bytes(buffer))
                    await rewrite.on_eof(self, direction)
                    return
                buffer += chunk
            if buffer[:4] == b"AMQP":
                self.send_bytes(TO_CLIENT, rewrite.protocol_header(self, TO_CLIENT, bytes(buffer[:PROTOCOL_HEADER_SIZE])))
                del buffer[:PROTOCOL_HEADER_SIZE]
        assembler = Assembler()  # a content-bearing command travels whole
        unfinished: dict[int, list[bytes]] = {}  # channel -> the frames of a content not yet whole
        while True:
            split = False  # this frame's bytes came in more than one read
            while True:
                if len(buffer) >= FRAME_HEADER.size:
                    _, _, size = FRAME_HEADER.unpack_from(buffer)
                    if size > (self.frame_max if direction == TO_BROKER else UNFRAMED_ABOVE):
                        await self.relay_unframed(reader, direction, bytes(buffer))
                        return
                    if len(buffer) >= FRAME_HEADER.size + size + 1:
                        break
                split = split or bool(buffer)
                chunk = await _read(reader)
                if not chunk:
                    await rewrite.on_eof(self, direction)
                    return
                buffer += chunk
            _, _, size = FRAME_HEADER.unpack_from(buffer)
            raw = bytes(buffer[:FRAME_HEADER.size + size + 1])
            del buffer[:len(raw)]
            parsed = _parsed(raw)
            if parsed is None:
                self.send_unparsed(direction, raw)
                continue
            channel, frame = parsed
            if unfinished.get(channel) and not isinstance(frame, (ContentHeader, ContentBody)):
                # Another frame inside an unfinished content (a framing rule's bad input): the
                # content so far goes on first, as it came (or as the rewrite repairs it).
                self.send_unparsed(direction, b"".join(unfinished.pop(channel)))
                assembler.drop(channel)
            cmd = assembler.feed(channel, frame, raw, split)
            if cmd is None:
                unfinished.setdefault(channel, []).append(raw)
                continue
            unfinished.pop(channel, None)
            await self.handle(direction, cmd)

    # -- bytes that are no frame pamqp reads (a framing rule's bad input) --------------------
    def send_unparsed(self, direction: str, raw: bytes) -> None:
        """A frame pamqp cannot read (a wrong end octet, an undefined type, arguments
        that do not decode): the rewrite may repair or drop it (`unparsed`), else it goes
        on as it came, so the broker judges it as it would without the proxy."""
        replacement = self.proxy.rewrite.unparsed(self, direction, raw)
        self.send_bytes(direction, raw if replacement is None else replacement)

    async def relay_unframed(self, reader, direction: str, head: bytes) -> None:
        """A size field beyond any frame-max: no frame can be cut out of this stream any
        more. The bytes so far (offered to the rewrite like an unparsed frame) and all
        that follow go on as they come, until the stream ends."""
        self.send_unparsed(direction, head)
        while chunk := await _read(reader):
            self.send_bytes(direction, chunk)
        await self.proxy.rewrite.on_eof(self, direction)

    async def handle(self, direction: str, cmd: Command) -> None:
        rewrite = self.proxy.rewrite
        if self._swallowed(direction, cmd):
            return
        if direction == TO_BROKER:
            if isinstance(cmd.method, spec.Connection.TuneOk) and cmd.method.frame_max:
                self.frame_max = cmd.method.frame_max
            if self.state.get("escalated"):
                if isinstance(cmd.method, spec.Connection.CloseOk):
                    self._writers[TO_BROKER].close()
                    self._writers[TO_CLIENT].close()
                return
            replacement = rewrite.from_client(self, cmd)
            self.tracker.from_client(cmd)
        else:
            if self.state.get("escalated"):
                return
            replacement = rewrite.from_broker(self, cmd)
            self.tracker.from_broker(cmd)
        if replacement is None:
            self.send(direction, cmd, raw=True)
        else:
            for out in replacement:
                self.send(direction, out)


# A size field above this is not waited for (no broker agrees a frame-max near it): the
# stream is relayed as it comes from there on (Link.relay_unframed).
UNFRAMED_ABOVE = 1 << 22


def _parsed(raw: bytes) -> tuple[int, Any] | None:
    """(channel, frame) of one frame's bytes, or None when pamqp cannot read them."""
    try:
        _, channel, frame = pamqp_frame.unmarshal(raw)
    except Exception:  # noqa: BLE001 - whatever pamqp raises, the frame is unreadable
        return None
    return channel, frame


async def _read(reader) -> bytes:
    """The next bytes of a stream; a reset reads as the end of the stream."""
    try:
        return await reader.read(65536)
    except (ConnectionError, OSError):
        return b""


class Rewrite:
    """The rewrite that changes nothing: the pass-through control. Mutations and variants
    subclass it and override the hooks they need. A hook returns None to pass the command on as
    its own bytes, or the list of commands to send instead (possibly empty)."""

    name = "pass-through"
    breaks: tuple[str, ...] = ()

    def from_client(self, link: Link, cmd: Command) -> list[Command] | None:
        return None

    def from_broker(self, link: Link, cmd: Command) -> list[Command] | None:
        return None

    def protocol_header(self, link: Link, direction: str, header: bytes) -> bytes:
        """The 8-octet protocol header travelling in `direction` (the client's, or a broker's
        answer to a header it does not speak): the octets to send instead."""
        return header

    async def on_eof(self, link: Link, direction: str) -> None:
        """One side ended its TCP stream (the other side is closed after this)."""

    def unparsed(self, link: Link, direction: str, raw: bytes) -> bytes | None:
        """Bytes pamqp cannot read as a frame: None passes them on as they are, else the
        bytes to send instead (b"": nothing)."""
        return None


class NamedRewrite(Rewrite):
    """A rewrite of a catalogue: named after its class (ShiftConfirmTags: shift_confirm_tags),
    described by its docstring."""

    @property
    def name(self) -> str:  # type: ignore[override]
        return re.sub(r"(?<!^)(?=[A-Z])", "_", type(self).__name__).lower()

    @property
    def description(self) -> str:
        return " ".join((type(self).__doc__ or "").split())


class FrameProxy:
    """Listens on 127.0.0.1:port in a thread of its own. Use as a context manager."""

    def __init__(self, broker_host: str, broker_port: int, rewrite: Rewrite | None = None):
        self.broker = (broker_host, broker_port)
        self.rewrite = rewrite or Rewrite()
        self.shared: dict = {}
        self.port = free_port()
        self.links: list[Link] = []
        self.errors: list[str] = []  # exceptions inside the proxy: a broken double, not a broken broker
        self._loop = asyncio.new_event_loop()
        # How late its loop runs (the suite's own watch, every 10 ms: a stall of a splitter's
        # pause must not fall between two ticks): a proxy that reads late reads at once what came
        # in pieces, and then a rewrite judging how the bytes came (a read count) has nothing to judge.
        self._lateness = LoopWatch(self._loop, period_s=0.01)
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name=f"frame-proxy {self.rewrite.name}")
        self._server = None

    def __enter__(self) -> "FrameProxy":
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the frame proxy did not start listening")
        return self

    def __exit__(self, *exc) -> None:
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        if not self._thread.is_alive():
            self._loop.close()

    async def _shutdown(self) -> None:
        """Stop listening and end every proxied connection."""
        self._server.close()
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", self.port))
        self._lateness.start()
        self._ready.set()
        self._loop.run_forever()

    @property
    def late_s(self) -> float:
        """The longest its loop woke late so far (s)."""
        return self._lateness.worst_s

    async def _serve(self, client_reader, client_writer) -> None:
        try:
            broker_reader, broker_writer = await asyncio.open_connection(*self.broker)
        except OSError:
            client_writer.close()
            return
        link = Link(self, client_writer, broker_writer)
        self.links.append(link)
        pumps = [asyncio.ensure_future(link.pump(client_reader, TO_BROKER)),
                 asyncio.ensure_future(link.pump(broker_reader, TO_CLIENT))]
        try:
            done, _ = await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                if task.exception() is not None and not isinstance(task.exception(), (ConnectionError, OSError)):
                    self.errors.append(f"{type(task.exception()).__name__}: {task.exception()}")
        finally:
            for task in pumps:
                task.cancel()
            for writer in (client_writer, broker_writer):
                with contextlib.suppress(Exception):
                    writer.close()


@contextlib.asynccontextmanager
async def dialogue_through(proxy: FrameProxy, target, consumer_timeout_ms: int | None, label: str):
    """(broker, connection): a suite Broker for the broker `target` names, reached through
    `proxy`, and one open wire connection, for a short dialogue in a project test. The
    connection is closed and the broker's queues deleted after."""
    from amqp_conformance.fixtures.vocabulary.broker import Broker, BrokerInfo

    info = BrokerInfo("RabbitMQ", "3.10.8", {}, "frame proxy", consumer_timeout_ms)
    broker = Broker(target.with_address("127.0.0.1", proxy.port), info, label, "doubles")
    connection = await broker.connection()
    try:
        yield broker, connection
    finally:
        await connection.close()
        await broker.cleanup()


async def close_for_an_unknown_ack(connection):
    """The close a broker answers an ack of a tag never delivered with (on a fresh channel
    of `connection`), or None if the channel stayed open: a dialogue both the mutants'
    and the variants' project tests read a rewritten close from."""
    from amqp_conformance.fixtures.wire.dialogue import Closed

    channel = await connection.channel()
    channel.ack(999)
    try:
        await channel.barrier()
    except Closed as closed:
        return closed.reply
    return None


@contextlib.contextmanager
def in_front_of(node, rewrite: Rewrite | None = None):
    """A FrameProxy with `rewrite` in front of managed `node` (a single node or a cluster's
    member) for the block: the suite's clients reach the node through it, as its `front`,
    while the node's own checks, restarts and rabbitmqctl go to the node."""
    with FrameProxy(node.target.host, node.target.port, rewrite) as proxy:
        node.front = node.target.with_address("127.0.0.1", proxy.port)
        try:
            yield proxy
        finally:
            node.front = None
