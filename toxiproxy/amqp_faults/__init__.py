"""The fault layer, one floor between the vocabulary and the brokers: the real Toxiproxy
server and a thin adapter over toxiproxy-python, named network faults and their injector,
the FLT-05 profiles, partitions of a cluster's links, and process faults (kill -9 and
restart, a queue's process killed). Named amqp_faults
(not toxiproxy) so that it never shadows the client library, which imports as
`toxiproxy`; see toxiproxy/README.md."""

import importlib

# The names the package offers, by the module that holds each. Each is imported when first
# asked for, not with the package: a run that injects no fault loads none of it
# (toxiproxy-python's requests included).
_HOMES = {"client": ("FaultProxy", "Toxic", "ToxiproxyAPI", "ToxiproxyError"),
          "faults": ("Fault", "FaultInjector", "bandwidth", "down", "latency", "limit_data", "reset_peer",
                     "silent_peer", "slicer", "slow_close", "stall")}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}
__all__ = list(_HOME_OF)


def __getattr__(name: str):
    if name not in _HOME_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_HOME_OF[name]}"), name)
    globals()[name] = value
    return value
