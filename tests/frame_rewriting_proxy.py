"""A test double: a TCP proxy in front of a real broker that rewrites the broker's
frames so the pair breaks exactly one rule. It shows that a rule test fails when its
rule is broken. (The full mutant proxy with a mutation score is a later issue.)"""

from __future__ import annotations

import asyncio
import struct
import threading
from typing import Callable, Iterable

from pamqp import commands as spec
from pamqp import frame as pamqp_frame

from fixtures.managed_brokers import free_port

HEADER = struct.Struct(">BHI")
# A mutation returns the frames to send instead of `frame`, or None to pass it unchanged
# (as the broker's own bytes: re-encoding is only for frames a mutation touches).
Mutation = Callable[[int, object], "Iterable[tuple[int, object]] | None"]


def hide_precondition_failed(channel, frame):
    """The broker's 406 channel closes never reach the client."""
    if isinstance(frame, spec.Channel.Close) and frame.reply_code == 406:
        return []
    return None


def clear_redelivered(channel, frame):
    """Every delivery claims to be a first delivery."""
    if isinstance(frame, (spec.Basic.Deliver, spec.Basic.GetOk)):
        frame.redelivered = False
        return [(channel, frame)]
    return None


def shift_confirm_tags(channel, frame):
    """Publisher confirms carry the sequence number plus one."""
    if isinstance(frame, (spec.Basic.Ack, spec.Basic.Nack)):
        frame.delivery_tag += 1
        return [(channel, frame)]
    return None


def duplicate_confirms(channel, frame):
    """Every publisher confirm is sent twice."""
    if isinstance(frame, (spec.Basic.Ack, spec.Basic.Nack)):
        return [(channel, frame), (channel, frame)]
    return None


MUTATIONS: dict[str, Mutation] = {f.__name__: f for f in
                                  (hide_precondition_failed, clear_redelivered, shift_confirm_tags, duplicate_confirms)}


class FrameRewritingProxy:
    """Listens on 127.0.0.1:port; client->broker bytes pass untouched, broker->client
    frames go through `mutation`. Runs its own event loop in a thread."""

    def __init__(self, broker_host: str, broker_port: int, mutation: Mutation):
        self.broker = (broker_host, broker_port)
        self.mutation = mutation
        self.port = free_port()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "FrameRewritingProxy":
        self._thread.start()
        self._ready.wait(5)
        return self

    def __exit__(self, *exc) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", self.port))
        self._ready.set()
        self._loop.run_forever()

    async def _serve(self, client_reader, client_writer) -> None:
        broker_reader, broker_writer = await asyncio.open_connection(*self.broker)
        upstream = asyncio.ensure_future(self._pipe(client_reader, broker_writer))
        try:
            # The protocol header goes up raw; everything the broker sends is framed.
            while True:
                head = await broker_reader.readexactly(HEADER.size)
                _, channel, size = HEADER.unpack(head)
                payload = await broker_reader.readexactly(size + 1)
                _, channel, frame = pamqp_frame.unmarshal(head + payload)
                replacement = self.mutation(channel, frame)
                if replacement is None:
                    client_writer.write(head + payload)
                    continue
                for out_channel, out_frame in replacement:
                    client_writer.write(pamqp_frame.marshal(out_frame, out_channel))
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            upstream.cancel()
            client_writer.close()
            broker_writer.close()

    @staticmethod
    async def _pipe(reader, writer) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()
