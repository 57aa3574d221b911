"""Named network faults, and the injector that applies them to one test's proxy.

A Fault is data (a name, the toxics, or the proxy taken down), so tests parametrize
over faults and ids read like the scenario: `reset-peer`, `silent-peer`, `down`,
`limit-data-downstream-1234B`. Apply one with `async with faults.injected(fault):`
or `await faults.apply(fault)` / `await faults.remove(fault)`; every change is an
event of the test's message history.

Streams, as Toxiproxy names them: upstream = client to broker, downstream = broker to
client; "both" puts the toxic on each.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import AsyncIterator, Protocol

from amqp_conformance.fixtures.wire.dialogue import WireConnection
from amqp_conformance.fixtures.wire.target import BrokerTarget

from .client import FaultProxy, Toxic

STREAMS = {"both": ("upstream", "downstream"), "upstream": ("upstream",), "downstream": ("downstream",)}


@dataclass(frozen=True)
class Fault:
    name: str
    toxics: tuple[Toxic, ...] = ()
    down: bool = False
    # Toxics that must exist before the faulted connection opens (see reset_peer).
    prepare: tuple[Toxic, ...] = field(default=(), compare=False)

    def __str__(self) -> str:
        return self.name

    @property
    def detail(self) -> str:
        if self.down:
            return "proxy disabled: listener closed, every connection closed"
        return "; ".join(f"{t.type} {t.stream} {t.attributes}" for t in self.toxics)


def _on(stream: str, kind: str, attributes: dict, tag: str) -> tuple[Toxic, ...]:
    return tuple(Toxic(kind, s, attributes, name=f"{tag}-{s}") for s in STREAMS[stream])


def latency(ms: int = 20, jitter: int = 0, stream: str = "both") -> Fault:
    """Every chunk waits `ms` (± `jitter`, order kept) in the stream(s)."""
    name = f"latency-{ms}ms" + (f"-jitter-{jitter}ms" if jitter else "") + ("" if stream == "both" else f"-{stream}")
    return Fault(name, _on(stream, "latency", {"latency": ms, "jitter": jitter}, name))


def bandwidth(rate_kb: int, stream: str = "both") -> Fault:
    """At most `rate_kb` KB/s (1 KB = 1000 B); rate 0 holds every byte back (a stall)."""
    name = (f"stall-{stream}" if rate_kb == 0 else f"bandwidth-{rate_kb}KBps-{stream}")
    return Fault(name, _on(stream, "bandwidth", {"rate": rate_kb}, name))


def stall(stream: str = "downstream") -> Fault:
    """Nothing moves until the fault is removed; then the stream continues intact."""
    return bandwidth(0, stream)


def slicer(average: int = 16, variation: int = 12, delay_us: int = 20, stream: str = "both") -> Fault:
    """Chunks cut into pieces of about `average` bytes, `delay_us` apart: frames split at
    arbitrary byte boundaries."""
    name = f"slicer-{average}B" + ("" if stream == "both" else f"-{stream}")
    return Fault(name, _on(stream, "slicer", {"average_size": average, "size_variation": variation,
                                               "delay": delay_us}, name))


def limit_data(nbytes: int, stream: str = "downstream") -> Fault:
    """Let `nbytes` more bytes through (counted from when it is applied), then close the
    connection: pick `nbytes` to land inside a frame to cut it mid-frame."""
    name = f"limit-data-{stream}-{nbytes}B"
    return Fault(name, (Toxic("limit_data", stream, {"bytes": nbytes}, name=name),))


def silent_peer(stream: str = "both") -> Fault:
    """A pulled cable: every byte dropped (both ways, or in one stream), the TCP
    connections stay open. Only heartbeats can detect it. Removing it closes the connection."""
    name = "silent-peer" + ("" if stream == "both" else f"-{stream}")
    return Fault(name, _on(stream, "timeout", {"timeout": 0}, name))


def reset_peer(stream: str = "downstream", timeout_ms: int = 0) -> Fault:
    """The connection is reset (RST) at its next chunk in `stream`. Toxiproxy sends an
    RST only on connections opened while a reset_peer toxic existed, so a harmless one
    (toxicity 0) is prepared before the connection opens."""
    name = f"reset-peer-{stream}"
    armed = Toxic("reset_peer", stream, {"timeout": 0}, name=f"{name}-linger", toxicity=0.0)
    return Fault(name, (Toxic("reset_peer", stream, {"timeout": timeout_ms}, name=name),), prepare=(armed,))


def slow_close(delay_ms: int = 500, stream: str = "downstream") -> Fault:
    """A close (FIN) in `stream` is passed on only after `delay_ms`."""
    name = f"slow-close-{delay_ms}ms-{stream}"
    return Fault(name, (Toxic("slow_close", stream, {"delay": delay_ms}, name=name),))


def down() -> Fault:
    """The proxy disabled: connections closed at once, new ones refused."""
    return Fault("down", down=True)


class Connecting(Protocol):
    """What the injector connects through: the broker under test (the vocabulary's Broker)."""

    target: BrokerTarget

    async def connection(self, *, heartbeat: int | None = None, target: BrokerTarget | None = None,
                         ) -> WireConnection: ...


class FaultLog(Protocol):
    """Where the injector records what it did: the test's message history (the vocabulary's History)."""

    def watch(self, connection: WireConnection) -> WireConnection: ...

    def fault(self, name: str, what: str, detail: str = "") -> None: ...


class FaultInjector:
    """One test's proxy in front of the broker, with the test's history."""

    def __init__(self, proxy: FaultProxy, broker: Connecting, history: FaultLog) -> None:
        self.proxy = proxy
        self.broker = broker
        self.history = history
        self.target = broker.target.with_address(proxy.host, proxy.port)
        self._applied: list[Fault] = []

    @property
    def applied(self) -> list[str]:
        """The names of the faults in force now, in the order they were applied."""
        return [fault.name for fault in self._applied]

    # -- connections -----------------------------------------------------------------------
    async def connection(self, *, heartbeat: int = 0) -> WireConnection:
        """A connection through the proxy, recorded in the history."""
        return self.history.watch(await self.broker.connection(heartbeat=heartbeat, target=self.target))

    async def direct(self, *, heartbeat: int = 0) -> WireConnection:
        """A connection straight to the broker (publishers, drains), recorded in the history."""
        return self.history.watch(await self.broker.connection(heartbeat=heartbeat, target=self.broker.target))

    # -- faults ---------------------------------------------------------------------------
    async def prepare(self, fault: Fault) -> None:
        for toxic in fault.prepare:
            await self.proxy.aadd_toxic(toxic)

    async def apply(self, fault: Fault) -> None:
        if fault.down:
            await self.proxy.adisable()
        for toxic in fault.toxics:
            await self.proxy.aadd_toxic(toxic)
        self._applied.append(fault)
        self.history.fault(fault.name, "applied", fault.detail)

    async def remove(self, fault: Fault) -> None:
        if fault not in self._applied:
            return
        self._applied.remove(fault)
        if fault.down:
            await self.proxy.aenable()
        for toxic in fault.toxics:
            await self.proxy.aremove_toxic(toxic.key)
        self.history.fault(fault.name, "removed", fault.detail)

    @contextlib.asynccontextmanager
    async def injected(self, fault: Fault) -> AsyncIterator[Fault]:
        await self.apply(fault)
        try:
            yield fault
        finally:
            await self.remove(fault)

    def remove_all_now(self) -> None:
        """Teardown (sync): lift whatever is still applied, so cleanup is not slowed by it."""
        for fault in reversed(self._applied):
            with contextlib.suppress(Exception):
                if fault.down:
                    self.proxy.enable()
                for toxic in fault.toxics:
                    self.proxy.remove_toxic(toxic.key)
            self.history.fault(fault.name, "removed", "at teardown")
        self._applied.clear()
