"""Variants of the names a broker makes up: the specification asks that a generated queue
name and a generated consumer tag be unique, never what they look like."""

from __future__ import annotations

from pamqp import base
from pamqp import commands as spec

from tests.frame_proxy import changed, replaced
from .base import AMQP_SPEC, Variant


class GeneratedNamesInAnotherFormat(Variant):
    """The queue names and consumer tags the broker generates reach every client in another
    format than RabbitMQ's: `amq.gen-X` as `gen_X`, `amq.ctag-X` as `ctag_X` (no `amq.`
    prefix, another separator), and go back to the broker as it made them, in every string
    field of every method (a queue name in queue.bind, a routing key through the default
    exchange, a tag in basic.cancel); reply texts keep the broker's own spelling."""

    allowed_by = (AMQP_SPEC, "a queue declared with no name gets a unique name the server generates, and so does "
                             "a consumer tag left empty (queue.declare queue [default-name]; basic.consume "
                             "consumer-tag): neither rule says what a generated name looks like")
    FORMATS = (("amq.gen-", "gen_"), ("amq.ctag-", "ctag_"))

    def from_broker(self, link, cmd):
        shown, made = link.shared.setdefault("shown names", {}), link.shared.setdefault("made names", {})
        method = cmd.method
        generated = (method.queue if isinstance(method, spec.Queue.DeclareOk) else
                     method.consumer_tag if isinstance(method, spec.Basic.ConsumeOk) else None)
        for prefix, other in self.FORMATS:
            if generated and generated.startswith(prefix) and generated not in shown:
                shown[generated] = other + generated[len(prefix):]
                made[shown[generated]] = generated
        return self._renamed(cmd, shown)

    def from_client(self, link, cmd):
        return self._renamed(cmd, link.shared.setdefault("made names", {}))

    @staticmethod
    def _renamed(cmd, names: dict[str, str]):
        method = cmd.method
        # A heartbeat carries no fields; a close's reply text keeps the broker's spelling.
        if not isinstance(method, base.Frame) or not names or isinstance(method, (spec.Channel.Close,
                                                                                   spec.Connection.Close)):
            return None
        fields = {name: names[value] for name, value in dict(method).items()
                  if isinstance(value, str) and value in names}
        return replaced(cmd, changed(method, **fields)) if fields else None


VARIANTS = [GeneratedNamesInAnotherFormat]
