"""What every mutant shares: the Mutant base (a name from its class, a description from its
docstring, the rules it breaks, the broker it is judged on) and small helpers for rewriting
pamqp methods."""

from __future__ import annotations

import re

from pamqp import commands as spec

from tests.mutation.mutant_proxy import Command, Identity

SETTLES = (spec.Basic.Ack, spec.Basic.Nack, spec.Basic.Reject)
CONFIRMS = (spec.Basic.Ack, spec.Basic.Nack)


def changed(method, **fields):
    """A copy of a pamqp method with some fields changed (the original stays as the
    client or broker sent it, for the tracker)."""
    return type(method)(**{**dict(method), **fields})


def replaced(cmd: Command, method) -> list[Command]:
    return [Command(cmd.channel, method, cmd.header, cmd.bodies)]


def without_argument(cmd: Command, kind: type, name: str) -> list[Command] | None:
    """`cmd` with the argument `name` removed, if it is a `kind` method that carries it."""
    m = cmd.method
    if isinstance(m, kind) and name in (m.arguments or {}):
        return replaced(cmd, changed(m, arguments={k: v for k, v in m.arguments.items() if k != name}))
    return None


def is_multiple(method) -> bool:
    return bool(getattr(method, "multiple", False))


class Mutant(Identity):
    breaks: tuple[str, ...] = ()
    # The managed broker the mutant is judged against: the rules some mutants break exist
    # only in newer RabbitMQ (x-consumer-timeout: 3.12+), where 3.10.8 answers unsupported.
    judged_on: str = "rabbitmq-3.10"
    # Breaks its rules by a hard error (a connection closed with 541, or dropped), which
    # fails a rule of any strength (fixtures.verdicts.hard_errors): INFO rules too.
    hard_error: bool = False

    @property
    def name(self) -> str:  # type: ignore[override]
        return re.sub(r"(?<!^)(?=[A-Z])", "_", type(self).__name__).lower()

    @property
    def description(self) -> str:
        return " ".join((type(self).__doc__ or "").split())
