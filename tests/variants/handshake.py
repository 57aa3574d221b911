"""Variants of the handshake: choices the specification leaves a broker before open-ok."""

from __future__ import annotations

from pamqp import commands as spec

from tests.frame_proxy import changed, replaced
from .base import AMQP_SPEC, Variant


class SilentHandshakeRefusal(Variant):
    """A broker that refuses a connection before open-ok sends nothing: its
    connection.close is withheld (the proxy answers it for the client) and the socket
    simply closes when the broker closes its own."""

    allowed_by = (AMQP_SPEC, "before open-ok a peer that finds an error closes the socket without sending "
                             "anything more (section 2.2.4)")

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, spec.Connection.OpenOk):
            link.state["opened"] = True
        elif isinstance(cmd.method, spec.Connection.Close) and not link.state.get("opened"):
            link.to_broker(0, spec.Connection.CloseOk())
            return []
        return None


class ServerPropertiesWithHost(Variant):
    """connection.start's server-properties name the host too (RabbitMQ leaves it out)."""

    allowed_by = (AMQP_SPEC, "server-properties should carry product, version, platform, copyright, "
                             "information and host (connection.start server-properties [required-fields])")

    def from_broker(self, link, cmd):
        m = cmd.method
        if isinstance(m, spec.Connection.Start) and "host" not in (m.server_properties or {}):
            return replaced(cmd, changed(m, server_properties={**m.server_properties, "host": "variant.invalid"}))
        return None


VARIANTS = [SilentHandshakeRefusal, ServerPropertiesWithHost]
