"""Variants of the handshake: choices the specification leaves a broker before open-ok."""

from __future__ import annotations

import asyncio

from pamqp import commands as spec

from tests.frame_proxy import TO_CLIENT, command
from .base import AMQP_SPEC, COMMANDS_HELD, Variant


class PausedHandshakeRefusal(Variant):
    """A broker that refuses a connection before open-ok waits PAUSE_S longer than
    RabbitMQ before it says so: its connection.close, or the end of its stream, reaches the
    client PAUSE_S later."""

    allowed_by = (AMQP_SPEC, "a server may pause some seconds before it closes a connection that failed "
                             "its handshake, against denial-of-service attempts (section 4.10.2)")
    pause_s = 2.0

    def from_broker(self, link, cmd):
        if isinstance(cmd.method, spec.Connection.OpenOk):
            link.state["opened"] = True
        elif isinstance(cmd.method, spec.Connection.Close) and not link.state.get("opened"):
            link.shared[COMMANDS_HELD] = link.shared.get(COMMANDS_HELD, 0) + 1
            asyncio.get_running_loop().call_later(self.pause_s, link.send, TO_CLIENT, command(0, cmd.method))
            return []
        return None

    async def on_eof(self, link, direction):
        if direction == TO_CLIENT and not link.state.get("opened"):
            link.shared[COMMANDS_HELD] = link.shared.get(COMMANDS_HELD, 0) + 1  # the end of the stream
            await asyncio.sleep(self.pause_s)


VARIANTS = [PausedHandshakeRefusal]
