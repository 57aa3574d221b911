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
every chunk into 2-10 byte pieces 20 µs apart, so the 8-byte protocol header, frame
headers, method frames and content frames arrive split at arbitrary byte boundaries,
in both directions (garagemq fails its handshake when the protocol header is split).
"""

from __future__ import annotations

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
