"""The conforming-variant catalogue: each variant makes RabbitMQ, seen through the frame
engine of tests/frame_proxy.py, behave like a broker that makes another choice the guides
and the AMQP 0-9-1 specification allow, and names the sentence that allows it. Through any
of them, every verdict of the suite must stay what it is without them (ci/variants measures
that: the suite's precision); a reply-text variant may turn a verdict non-strict, never
failed. A variant is data plus small hooks, like a mutant (tests/mutation/mutants/), and
never knows how a rule module is written.

One module per subject: confirms, deliveries, connection (texts, framing, heartbeats,
capabilities), handshake (before open-ok), names (what generated names look like), counts
(what a count includes).
"""

from __future__ import annotations

from . import confirms, connection, counts, deliveries, handshake, names
from .base import Variant

AREAS = (confirms, deliveries, connection, handshake, names, counts)
VARIANTS: dict[str, Variant] = {v.name: v for v in (cls() for area in AREAS for cls in area.VARIANTS)}

__all__ = ["VARIANTS", "Variant"]
