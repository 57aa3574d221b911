"""FLT-05: the ACK, QOS, PC and TX rules run again through network profiles that must
change no verdict (which rules: their declaration's `flt05_copies`, amqp_conformance.fixtures.core.rules). The
plugin duplicates every collected test of those rules once per profile (`test_x[flt05-latency]`), routes that copy's connections through its own
proxy carrying the profile from before the first byte, and tags it FLT-05, `fault`
and the profile name, so `-m fault`, `-k flt_05` and `-k slicer` select them.

The values are small on purpose. A rule test makes 5-30 round trips; 20 ms each way
adds ~40 ms per round trip, so a test stays well under a second slower while every
frame still crosses a real delay; the bounds in amqp_conformance.fixtures.core.timeouts (3 s per reply, 1 s
negative windows) stay far above it. Jitter (15 ± 10 ms) never reorders (Toxiproxy
keeps chunk order) but changes the gaps between frames. 200 KB/s is above what these
tests send per second, yet slices larger writes into 100 ms pieces. The slicer cuts
every chunk into 2-10 byte pieces 20 µs apart, so frame headers, method frames and
content frames arrive split at arbitrary byte boundaries, in both directions.

Pieces 20 µs apart often reach a broker in one read all the same, and Toxiproxy never
cuts a chunk of 10 octets or fewer at these sizes: the 8-octet protocol header went whole.
So the slicer's copies also go through a `HeaderSplitter` in front of their proxy, which
writes every connection's protocol header in two writes and the first frame after it
(start-ok) cut inside its frame header, each time with a pause (SPLIT_PAUSE) long enough
for the broker to read what came first. A broker that reads the header, or a frame
header, with one read then fails every slicer copy, every run (garagemq fails its
handshake when the protocol header is split; tests/mutation/mutants/fr.py has a mutant of
it). Only these two writes pause: a pause on every piece would cost seconds per test.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from typing import Iterator

from amqp_conformance.fixtures.core.rules import CONFIRMS, MUST, rule

from .faults import Fault, bandwidth, latency, slicer

RULE_FLT_05 = rule("FLT-05", "Latency, jitter, bandwidth limits and sliced frames change no verdict",
                   strength=MUST, guide=CONFIRMS, section="publisher-confirms")

PROFILES: dict[str, Fault] = {
    "latency": latency(20),
    "jitter": latency(15, jitter=10),
    "bandwidth": bandwidth(200),
    "slicer": slicer(6, 4, 20),
}

# Seconds between the two writes of a split: far above the time a broker's reader takes to
# be scheduled on a loaded host (a few ms), and paid twice per connection only.
SPLIT_PAUSE = 0.05
PROTOCOL_HEADER_SIZE = 8
HEADER_CUT = 4  # "AMQP" | 0, 0, 9, 1
FRAME_CUT = 3  # inside the first frame's 7-octet header (type, channel | size)
SPLIT_FRONTED = frozenset({"slicer"})  # the profiles whose copies go through a HeaderSplitter


class HeaderSplitter:
    """A TCP relay (its own threads) in front of `upstream`: each connection's first
    octets toward the broker go as the protocol header's first 4 octets, a pause, the rest
    of it, and the first frame after it as 3 octets, a pause, the rest; everything else is
    relayed as it comes, both ways."""

    def __init__(self, upstream_host: str, upstream_port: int) -> None:
        self.upstream = (upstream_host, upstream_port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.host, self.port = self.listener.getsockname()[:2]
        self._sockets: list[socket.socket] = []
        self._stopped = threading.Event()
        threading.Thread(target=self._accept, name="header-splitter", daemon=True).start()

    def _accept(self) -> None:
        while not self._stopped.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        try:
            broker = socket.create_connection(self.upstream, timeout=10)
        except OSError:
            client.close()
            return
        broker.settimeout(None)
        for side in (client, broker):
            side.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._sockets += [client, broker]
        threading.Thread(target=self._relay, args=(broker, client), daemon=True).start()
        self._relay(client, broker, cuts=[HEADER_CUT, PROTOCOL_HEADER_SIZE + FRAME_CUT])

    def _relay(self, source: socket.socket, sink: socket.socket, cuts: list[int] | None = None) -> None:
        """Copy `source` to `sink`; the octets at the offsets `cuts` (counted from the
        stream's start) begin a write of their own, after a pause."""
        sent, cuts = 0, list(cuts or ())
        try:
            while data := source.recv(65536):
                while cuts and sent + len(data) > cuts[0]:
                    head, data = data[:cuts[0] - sent], data[cuts[0] - sent:]
                    if head:
                        sink.sendall(head)
                        sent += len(head)
                    time.sleep(SPLIT_PAUSE)  # the fault itself: the broker reads `head` alone
                    cuts.pop(0)
                sink.sendall(data)
                sent += len(data)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                sink.shutdown(socket.SHUT_WR)

    def close(self) -> None:
        self._stopped.set()
        self.listener.close()
        for side in self._sockets:
            with contextlib.suppress(OSError):
                side.close()


@contextlib.contextmanager
def fronted(profile: str, host: str, port: int) -> Iterator[tuple[str, int]]:
    """Where a copy run through `profile`'s proxy at host:port connects: a HeaderSplitter
    in front of it for the slicer, else the proxy itself."""
    if profile not in SPLIT_FRONTED:
        yield host, port
        return
    splitter = HeaderSplitter(host, port)
    try:
        yield splitter.host, splitter.port
    finally:
        splitter.close()
