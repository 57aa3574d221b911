"""Mutants of the EX and BND (exchanges and bindings) rules of the specification."""

from __future__ import annotations

from pamqp import commands as spec  # noqa: F401 (the mutants' vocabulary)

from tests.mutation.mutant_proxy import command  # noqa: F401
from .base import Mutant, changed, replaced  # noqa: F401

MUTANTS: tuple[type[Mutant], ...] = ()
# The MUST rules of this area no proxy can break, and why.
NOT_EXPRESSIBLE: dict[str, str] = {}
