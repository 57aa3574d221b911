"""What every conforming variant shares: the Variant base (a named rewrite of the frame
engine, with the source and sentence that allow it), and Held, the one way a variant delays
the broker's frames without reordering a channel."""

from __future__ import annotations

import asyncio

from amqp_conformance.fixtures.core.rules import Guide
from tests.frame_proxy import TO_CLIENT, Command, Link, NamedRewrite

AMQP_SPEC = Guide("AMQP 0-9-1 specification", "https://www.rabbitmq.com/resources/specs/amqp0-9-1.pdf")


class Variant(NamedRewrite):
    """A broker that makes another choice the guides allow. `allowed_by` is the source
    and, in the project's words, the sentence that allows the choice."""

    allowed_by: tuple[Guide, str]
    # A variant that changes only reply texts: a rule may call the broker's words
    # non-strict (a SHOULD about wording), never failed.
    texts_only = False
    # A variant that makes the broker slower (its frames held back): a performance claim
    # (a PERF rule, a SHOULD about speed) may turn non-strict through it, never fail. A
    # slower broker missing a claim about speed is the claim's finding, not the suite's.
    slows = False

    @property
    def source(self) -> str:
        guide, sentence = self.allowed_by
        return f"{guide.title}: {sentence}"


COMMANDS_HELD = "commands held"  # FrameProxy.shared: how many of the broker's commands a Held variant held


class Held(Variant):
    """Holds some of the broker's commands for up to `hold_s` before they go on. Whatever
    else the broker sends on the same channel (a reply, a close) first releases what that
    channel holds, so a channel's commands reach the client in the broker's order, only
    later; a connection-level command or the end of the broker's stream releases all."""

    slows = True

    hold_s = 0.0

    def holds(self, link: Link, cmd: Command) -> bool:
        raise NotImplementedError

    def kept(self, link: Link, cmd: Command):
        """What is kept of a held command until its release (the command itself)."""
        return cmd

    def release(self, link: Link, channel: int, kept: list) -> list[Command]:
        """The commands that go on for what `channel` held (by default, as they came)."""
        return kept

    def from_broker(self, link, cmd):
        if cmd.channel == 0:
            for channel in [key[1] for key in link.state if key[0] == "held"]:
                self._flush(link, channel)
            return None
        if self.holds(link, cmd):
            # Counted for the proxy's owner: what the variant held is its act on the wire.
            link.shared[COMMANDS_HELD] = link.shared.get(COMMANDS_HELD, 0) + 1
            held = link.state.setdefault(("held", cmd.channel), [])
            if not held:
                asyncio.get_running_loop().call_later(self.hold_s, self._flush, link, cmd.channel)
            held.append(self.kept(link, cmd))
            return []
        self._flush(link, cmd.channel)
        return None

    async def on_eof(self, link, direction):
        if direction == TO_CLIENT:
            for channel in [key[1] for key in link.state if key[0] == "held"]:
                self._flush(link, channel)

    def _flush(self, link: Link, channel: int) -> None:
        kept = link.state.pop(("held", channel), [])
        for cmd in self.release(link, channel, kept) if kept else ():
            link.send(TO_CLIENT, cmd, raw=True)
