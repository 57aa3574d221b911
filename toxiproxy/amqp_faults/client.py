"""The one thin adapter over toxiproxy-python 0.1.1 (imported as `toxiproxy`).

The library covers the API the suite needs (proxies, toxics, enable/disable) but has
four gaps, each handled here and nowhere else:

* a process-global endpoint (`APIConsumer.host/port` are class attributes): every call
  goes through `_endpoint()`, which sets them under a lock for this adapter's server;
* no HTTP timeouts: `toxiproxy.api.requests` is replaced by a session whose every call
  has a timeout (a wedged server, issue #558, must not hang a test);
* HTTP 500/503 surface as `KeyError: 'name'` or pass silently: `validate_response` is
  wrapped to raise ToxiproxyError with the server's own error text;
* blocking calls in async tests: the `a*` methods run the same calls in a thread.

Nothing else of the client is rewritten.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from dataclasses import dataclass
from urllib.parse import urlsplit

import requests
import toxiproxy.api as _api
from toxiproxy import Toxiproxy
from toxiproxy.exceptions import InvalidToxic, NotFound, ProxyExists
from toxiproxy.proxy import Proxy

from amqp_conformance.fixtures.brokers.managed import free_port

HTTP_TIMEOUT_S = 5.0
_LOCK = threading.RLock()


class ToxiproxyError(RuntimeError):
    """The Toxiproxy server refused a call, failed, or could not be reached."""


class _TimedRequests:
    """Stands in for the `requests` module inside toxiproxy.api: same calls, with a timeout."""

    def __init__(self, timeout: float) -> None:
        self._session = requests.Session()
        self.timeout = timeout

    def get(self, url, **kw):
        kw.setdefault("timeout", self.timeout)
        return self._session.get(url, **kw)

    def post(self, url, **kw):
        kw.setdefault("timeout", self.timeout)
        return self._session.post(url, **kw)

    def delete(self, url, **kw):
        kw.setdefault("timeout", self.timeout)
        return self._session.delete(url, **kw)


_original_validate = _api.validate_response


def _strict_validate(response):
    response = _original_validate(response)  # 400/404/409 -> the library's own exceptions
    if response.status_code >= 400:
        try:
            text = response.json().get("error", response.text)
        except ValueError:
            text = response.text
        raise ToxiproxyError(f"toxiproxy answered {response.status_code}: {text}")
    return response


if not isinstance(_api.requests, _TimedRequests):
    _api.requests = _TimedRequests(HTTP_TIMEOUT_S)
    _api.validate_response = _strict_validate


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

    def __init__(self, url: str) -> None:
        parts = urlsplit(url if "://" in url else f"http://{url}")
        if not parts.hostname or not parts.port:
            raise ToxiproxyError(f"not a Toxiproxy URL (http://host:port): {url!r}")
        self.url = f"http://{parts.hostname}:{parts.port}"
        self.host, self.port = parts.hostname, parts.port
        self._server = Toxiproxy()

    @contextlib.contextmanager
    def _endpoint(self):
        with _LOCK:
            previous = (_api.APIConsumer.host, _api.APIConsumer.port)
            self._server.update_api_consumer(self.host, self.port)
            try:
                yield
            except (ProxyExists, NotFound, InvalidToxic) as refused:
                raise ToxiproxyError(f"toxiproxy refused: {type(refused).__name__} {_text(refused)}") from None
            except requests.RequestException as failed:
                raise ToxiproxyError(f"toxiproxy at {self.url} unreachable: {type(failed).__name__}") from None
            finally:
                _api.APIConsumer.host, _api.APIConsumer.port = previous

    def version(self) -> str:
        with self._endpoint():
            body = _api.APIConsumer.get("/version").content
        try:
            return json.loads(body)["version"]
        except (ValueError, KeyError, TypeError):
            return body.decode(errors="replace").strip()

    def create_proxy(self, name: str, upstream: str, listen: str | None = None) -> "FaultProxy":
        # A disabled proxy listens again on its port when enabled: a port below the
        # ephemeral range (free_port) cannot have been handed to another socket meanwhile.
        listen = listen or f"127.0.0.1:{free_port()}"
        with self._endpoint():
            proxy = self._server.create(upstream=upstream, name=name, listen=listen)
        return FaultProxy(self, proxy)

    def proxy_names(self) -> list[str]:
        with self._endpoint():
            return sorted(self._server.proxies())


class FaultProxy:
    """One proxy in front of the broker, owned by one test."""

    def __init__(self, api: ToxiproxyAPI, proxy: Proxy) -> None:
        self.api = api
        self._proxy = proxy
        self.name = proxy.name
        host, _, port = proxy.listen.rpartition(":")
        self.host, self.port = host, int(port)

    # -- blocking calls (sync fixtures, setup code) ---------------------------------------
    def add_toxic(self, toxic: Toxic) -> None:
        with self.api._endpoint():
            self._proxy.add_toxic(type=toxic.type, stream=toxic.stream, name=toxic.key,
                                  toxicity=toxic.toxicity, attributes=dict(toxic.attributes))

    def remove_toxic(self, name: str) -> None:
        with self.api._endpoint():
            self._proxy.destroy_toxic(name)

    def toxic_names(self) -> list[str]:
        with self.api._endpoint():
            return sorted(self._proxy.toxics())

    def disable(self) -> None:
        with self.api._endpoint():
            self._proxy.disable()

    def enable(self) -> None:
        with self.api._endpoint():
            self._proxy.enable()

    def delete(self) -> None:
        with self.api._endpoint():
            self._proxy.destroy()

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


def _text(error: Exception) -> str:
    arg = error.args[0] if error.args else ""
    return arg.decode(errors="replace") if isinstance(arg, bytes) else str(arg)
