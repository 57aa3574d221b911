"""Partitions between the nodes of a cluster the suite starts: every directed link between
two nodes runs through a Toxiproxy proxy of its own, so a pair can be cut (both proxies
disabled, or a fault's toxics added) and healed exactly.

The cluster (amqp_conformance.fixtures.brokers.rabbitmq_cluster) asks `route` for the port that node
i must dial to reach node j; it knows nothing of Toxiproxy. This server belongs to the links
(it starts with the cluster, before any test, whether or not the suite's fault rules run).
"""

from __future__ import annotations

import contextlib

from .client import FaultProxy, ToxiproxyAPI, ToxiproxyError
from .server import ToxiproxyServer, ToxiproxyUnavailable


class LinksUnavailable(RuntimeError):
    """The proxied links cannot be made (no Toxiproxy): the message says why, in one line."""


class ProxiedLinks:
    """The cluster's inter-node links, each through a proxy: cut, heal and isolate them."""

    def __init__(self) -> None:
        self._server: ToxiproxyServer | None = None
        self._api: ToxiproxyAPI | None = None
        self.proxies: dict[tuple[int, int], FaultProxy] = {}  # (i, j) -> the proxy node i dials to reach node j

    def route(self, run: str, i: int, j: int, peer_port: int) -> int:
        """The port node i dials to reach node j, whose distribution port is `peer_port`."""
        if self._api is None:
            try:
                self._server = ToxiproxyServer()
                self._api = ToxiproxyAPI(self._server.start())
            except (ToxiproxyUnavailable, ToxiproxyError) as problem:
                raise LinksUnavailable(f"the cluster routes its nodes' links through Toxiproxy: {problem}") from None
        proxy = self._api.create_proxy(f"amqpc-{run}-dist-{i + 1}-{j + 1}", f"127.0.0.1:{peer_port}")
        self.proxies[(i, j)] = proxy
        return proxy.port

    def cut(self, a: int, b: int, fault=None) -> None:
        """Cut the link between nodes a and b (0-based), both directions: the proxies
        disabled (both nodes see nodedown at once), or `fault`'s toxics added (silent_peer():
        the connection stays up and carries nothing)."""
        for pair in ((a, b), (b, a)):
            if fault is None:
                self.proxies[pair].disable()
            else:
                for toxic in fault.toxics:
                    self.proxies[pair].add_toxic(toxic)

    def heal(self, a: int, b: int) -> None:
        for pair in ((a, b), (b, a)):
            _heal(self.proxies[pair])

    def isolate(self, index: int, fault=None) -> None:
        for other in sorted({j for i, j in self.proxies if i == index}):
            self.cut(index, other, fault)

    def heal_all(self) -> None:
        for proxy in self.proxies.values():
            _heal(proxy)

    def close(self) -> None:
        """Every proxy deleted and the server stopped, whatever one step raises."""
        with contextlib.ExitStack() as steps:
            if self._server is not None:
                steps.callback(self._server.stop)
            for proxy in self.proxies.values():
                steps.callback(_quietly, proxy.delete)


def _heal(proxy: FaultProxy) -> None:
    for name in proxy.toxic_names():
        proxy.remove_toxic(name)
    proxy.enable()


def _quietly(action) -> None:
    try:
        action()
    except Exception:  # noqa: BLE001 - best effort: the server is stopped next anyway
        pass
