"""What every mutant shares: the Mutant base (a named rewrite of the frame engine: the rules
it breaks, the broker it is judged on) and small helpers for rewriting
pamqp methods."""

from __future__ import annotations

from pamqp import commands as spec

from tests.frame_proxy import (CONFIRMS, SETTLES, Command, NamedRewrite, changed, replaced)  # noqa: F401 (the mutants' vocabulary)



def without_argument(cmd: Command, kind: type, name: str) -> list[Command] | None:
    """`cmd` with the argument `name` removed, if it is a `kind` method that carries it."""
    m = cmd.method
    if isinstance(m, kind) and name in (m.arguments or {}):
        return replaced(cmd, changed(m, arguments={k: v for k, v in m.arguments.items() if k != name}))
    return None


def is_multiple(method) -> bool:
    return bool(getattr(method, "multiple", False))


class Mutant(NamedRewrite):
    breaks: tuple[str, ...] = ()
    # The managed broker the mutant is judged against: the rules some mutants break exist
    # only in newer RabbitMQ (x-consumer-timeout: 3.12+), where 3.10.8 answers unsupported.
    judged_on: str = "rabbitmq-3.10"
    # Breaks its rules by a hard error (a connection closed with 541, or dropped), which
    # fails a rule of any strength (amqp_conformance.fixtures.checking.judge.hard_errors): INFO rules too.
    hard_error: bool = False
    # Judged only through a node of the suite's own (tests/mutation/test_node_mutants.py):
    # what it breaks rests on a setting the suite makes there with rabbitmqctl (a policy),
    # which a broker at a URL without --management-url does not take.
    own_node: bool = False
