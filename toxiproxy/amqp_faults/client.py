"""The one thin adapter over Toxiproxy's HTTP API (the server's own, v2), for the suite.

toxiproxy-python 0.1.1 speaks the same API but keeps its endpoint in class attributes
(one server per process), sets no HTTP timeout (a wedged server, issue #558, would hang
a test) and lets HTTP 500/503 pass as `KeyError: 'name'`; filling those gaps meant
replacing parts of it at import. So the adapter makes the few calls itself, configured per
server: its own HTTP session, a timeout on every call (`timeout`, HTTP_TIMEOUT_S by
default), every refusal or failure a ToxiproxyError with the server's own text. The
blocking calls have `a*` twins that run them in a thread, for async tests.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import quote, urlsplit

from amqp_conformance.fixtures.core.ports import free_port
from amqp_conformance.fixtures.core.harness_lag import off_the_loop

if TYPE_CHECKING:
    import requests

HTTP_TIMEOUT_S = 5.0
# What the server's 4xx refusals mean (the names toxiproxy-python gives them).
REFUSALS = {400: "InvalidToxic", 404: "NotFound", 409: "ProxyExists"}


class ToxiproxyError(RuntimeError):
    """The Toxiproxy server refused a call, failed, or could not be reached."""


@dataclass(frozen=True)
class Toxic:
    """One toxic as the server takes it: type, stream (upstream = client to broker,
    downstream = broker to client), attributes, toxicity."""

    type: str
    stream: str
    attributes: dict
    name: str = ""
    toxicity: float = 1.0

    @property
    def key(self) -> str:
        return self.name or f"{self.type}_{self.stream}"


class ToxiproxyAPI:
    """A Toxiproxy server at `url` (http://host:port)."""

    def __init__(self, url: str, timeout: float = HTTP_TIMEOUT_S) -> None:
        parts = urlsplit(url if "://" in url else f"http://{url}")
        if not parts.hostname or not parts.port:
            raise ToxiproxyError(f"not a Toxiproxy URL (http://host:port): {url!r}")
        self.url = f"http://{parts.hostname}:{parts.port}"
        self.host, self.port = parts.hostname, parts.port
        self.timeout = timeout
        # requests when a server is first used, not when the plugin loads: 0.12 s of imports,
        # in every process of a run, that a process injecting no fault never needed.
        import requests

        self._session = requests.Session()

    def call(self, method: str, path: str, body: dict | None = None) -> requests.Response:
        """One HTTP call to the server, bounded by `timeout`; any refusal or failure is a
        ToxiproxyError carrying the server's text. Never on the event loop's thread: the `a*` twins."""
        off_the_loop(f"Toxiproxy {method} {path}")
        import requests  # loaded by __init__ already

        try:
            response = self._session.request(method, self.url + path, json=body, timeout=self.timeout)
        except requests.RequestException as failed:
            raise ToxiproxyError(f"toxiproxy at {self.url} unreachable: {type(failed).__name__}") from None
        if response.status_code in REFUSALS:
            raise ToxiproxyError(f"toxiproxy refused: {REFUSALS[response.status_code]} {_error_text(response)}")
        if response.status_code >= 400:
            raise ToxiproxyError(f"toxiproxy answered {response.status_code}: {_error_text(response)}")
        return response

    def version(self) -> str:
        body = self.call("GET", "/version").content
        try:
            return json.loads(body)["version"]
        except (ValueError, KeyError, TypeError):
            return body.decode(errors="replace").strip()

    def create_proxy(self, name: str, upstream: str, listen: str | None = None) -> "FaultProxy":
        # A disabled proxy listens again on its port when enabled: a port below the
        # ephemeral range (free_port) cannot have been handed to another socket meanwhile.
        listen = listen or f"127.0.0.1:{free_port()}"
        made = self.call("POST", "/proxies", {"name": name, "upstream": upstream, "listen": listen,
                                              "enabled": True}).json()
        return FaultProxy(self, made["name"], made["listen"])

    def proxy_names(self) -> list[str]:
        return sorted(self.call("GET", "/proxies").json())


class FaultProxy:
    """One proxy in front of the broker, owned by one test."""

    def __init__(self, api: ToxiproxyAPI, name: str, listen: str) -> None:
        self.api = api
        self.name = name
        host, _, port = listen.rpartition(":")
        self.host, self.port = host, int(port)
        self._path = f"/proxies/{quote(name, safe='')}"

    # -- blocking calls (sync fixtures, setup code) ---------------------------------------
    def add_toxic(self, toxic: Toxic) -> None:
        self.api.call("POST", f"{self._path}/toxics", {"name": toxic.key, "type": toxic.type, "stream": toxic.stream,
                                                       "toxicity": toxic.toxicity,
                                                       "attributes": dict(toxic.attributes)})

    def remove_toxic(self, name: str) -> None:
        self.api.call("DELETE", f"{self._path}/toxics/{quote(name, safe='')}")

    def toxic_names(self) -> list[str]:
        return sorted(toxic["name"] for toxic in self.api.call("GET", f"{self._path}/toxics").json())

    def disable(self) -> None:
        self.api.call("POST", self._path, {"enabled": False})

    def enable(self) -> None:
        self.api.call("POST", self._path, {"enabled": True})

    def delete(self) -> None:
        self.api.call("DELETE", self._path)

    # -- the same, for async tests: never block the event loop ------------------------------
    async def aadd_toxic(self, toxic: Toxic) -> None:
        await asyncio.to_thread(self.add_toxic, toxic)

    async def aremove_toxic(self, name: str) -> None:
        await asyncio.to_thread(self.remove_toxic, name)

    async def adisable(self) -> None:
        await asyncio.to_thread(self.disable)

    async def aenable(self) -> None:
        await asyncio.to_thread(self.enable)

    async def atoxic_names(self) -> list[str]:
        return await asyncio.to_thread(self.toxic_names)


def _error_text(response: requests.Response) -> str:
    try:
        return str(response.json().get("error", response.text))
    except (ValueError, AttributeError):
        return response.text.strip()
