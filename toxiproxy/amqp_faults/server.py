"""The Toxiproxy server the suite starts itself: the real Shopify binary (v2.12.0,
installed by ci/setup from the Go module proxy), on 127.0.0.1 and a free port."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from amqp_conformance.fixtures.core.cache import cache_dir

from amqp_conformance.fixtures.core import lifeline
from amqp_conformance.fixtures.core.polling import poll_until
from amqp_conformance.fixtures.core.ports import free_port

from .client import ToxiproxyAPI, ToxiproxyError

VERSION = "2.12.0"
START_TIMEOUT_S = 10.0


class ToxiproxyUnavailable(RuntimeError):
    """No Toxiproxy server can be had; the message says why and how to get one."""


def cached_binary() -> Path:
    return cache_dir() / "toxiproxy" / f"v{VERSION}" / "bin" / "toxiproxy-server"


def find_binary(given: str | None = None) -> Path:
    """--toxiproxy-server PATH if given (and only it), else $TOXIPROXY_SERVER, then the
    ci/setup cache, then PATH."""
    if given:
        if Path(given).is_file() and os.access(given, os.X_OK):
            return Path(given)
        raise ToxiproxyUnavailable(f"--toxiproxy-server {given}: no executable file there")
    candidates = [os.environ.get("TOXIPROXY_SERVER"), str(cached_binary()), shutil.which("toxiproxy-server")]
    for candidate in candidates:
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return Path(candidate)
    raise ToxiproxyUnavailable(f"no toxiproxy-server binary (looked at $TOXIPROXY_SERVER, {cached_binary()}, "
                               "PATH); put toxiproxy-server on PATH, or give --toxiproxy-server PATH or --toxiproxy-url URL")


class ToxiproxyServer:
    """A toxiproxy-server process owned by this run; `url` once started."""

    def __init__(self, binary: Path | None = None) -> None:
        self.binary = binary or find_binary()
        self.process: subprocess.Popen | None = None
        self.url = ""
        self.log_file = lifeline.temp_file("toxiproxy-", ".log")

    def start(self) -> str:
        port = free_port()
        with open(self.log_file, "wb") as log:
            self.process = lifeline.start_group(
                [str(self.binary), "-host", "127.0.0.1", "-port", str(port)],
                env={**os.environ, "LOG_LEVEL": "warn"}, stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{port}"
        api = ToxiproxyAPI(self.url)

        def answers() -> bool:
            if self.process.poll() is not None:  # raising ends the poll: no later reading can answer
                raise ToxiproxyUnavailable(f"{self.binary} exited with status {self.process.returncode}: "
                                           f"{self.log_file.read_text(errors='replace')[-300:]}")
            try:
                api.version()
                return True
            except ToxiproxyError:
                return False

        if poll_until(answers, within=START_TIMEOUT_S, every=0.05).held:
            return self.url
        self.stop()
        raise ToxiproxyUnavailable(f"{self.binary} did not answer on {self.url} within {START_TIMEOUT_S:.0f} s")

    def stop(self) -> None:
        if self.process is not None:
            lifeline.end_group(self.process, 5)
        lifeline.remove_temp(self.log_file)
