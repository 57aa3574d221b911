"""The network fault layer: the real Toxiproxy server, a thin adapter over
toxiproxy-python, named fault scenarios, and the FLT-05 profiles. Named amqp_faults
(not toxiproxy) so that it never shadows the client library, which imports as
`toxiproxy`; see toxiproxy/README.md."""

from .client import FaultProxy, Toxic, ToxiproxyAPI, ToxiproxyError
from .faults import (Fault, FaultInjector, bandwidth, down, latency, limit_data, reset_peer, silent_peer,
                     slicer, slow_close, stall)

__all__ = ["FaultProxy", "Toxic", "ToxiproxyAPI", "ToxiproxyError", "Fault", "FaultInjector", "bandwidth",
           "down", "latency", "limit_data", "reset_peer", "silent_peer", "slicer", "slow_close", "stall"]
