"""The mutant catalogue: each mutation makes RabbitMQ, seen through tests/mutation/mutant_proxy.py,
behave like a broker that breaks the rules in its `breaks` (catalogue ids of RULES.md).
One or more mutants for every MUST rule a proxy can express; a few SHOULD rules too
(their tests must turn non-strict). A mutant is data plus two small hooks; it never
knows how a test is written, only what the rule promises.

Rules no mutant covers, and why: the INFO rules (ACK-01's contiguity, RQ-06,
QOS-05/06/08/09, PC-12/13/17, TX-07, CON-08, CON-13, FLT-06) have no verdict to break
(save a hard error, which fails any rule: recover_without_requeue_crashes fails INFO RD-07
that way); RQ-05, RQ-07 and RQ-09 (SHOULD, ordering among messages, and RQ-07's
promptness) need the proxy to hold a queue's contents, which it cannot. CON-24, CON-25 and PC-18
have mutants judged only on nodes the suite configures or reaches into (their declarations'
needs=("managed-node",)), and PC-10, TX-10 and FLT-08 only on a node it restarts
(needs=("restart",)): tests/mutation/test_node_mutants.py judges them there. "Delivery tags start at 2 on every channel" breaks
no rule: tags stay positive, increasing and per channel; where the count starts is INFO
(ACK-01 records "contiguous from 1"), so it is not a mutant; nor is "one tag sequence for
the whole connection": each channel's tags stay its own, and that a fresh channel starts
where the first did is ACK-02's SHOULD part.

One module per area, like conformance/: each lists its MUTANTS (and NOT_EXPRESSIBLE, the
MUST rules no proxy can break, with the reason); this package joins them and derives the
rule lists from the registry, so a new MUST rule without a mutant fails
tests/mutation/test_mutant_proxy.py.
"""

from __future__ import annotations

from amqp_conformance.fixtures.commands.catalogue import load_all_rules
from amqp_conformance.fixtures.core.rules import MUST, REGISTRY, SHOULD

from . import ack, clu, cn, con, ex, flt, fr, pc, qos, qu, rd, rq, rt, tx
from .base import Mutant

AREAS = (ack, rq, rd, qos, pc, tx, con, flt, clu, ex, qu, rt, cn, fr)

# The MUST and SHOULD rules of the catalogue, from the registry (the rule modules' own
# declarations). Every MUST rule is broken by at least one mutant unless an area lists it
# in NOT_EXPRESSIBLE; a model check (MDL-*) is judged through the rules it covers.
load_all_rules()
MUST_RULES = tuple(sorted(r.id for r in REGISTRY.values() if r.strength is MUST and not r.covers))
SHOULD_RULES = tuple(sorted(r.id for r in REGISTRY.values() if r.strength is SHOULD))
MUTANTS: dict[str, Mutant] = {m.name: m for m in (cls() for area in AREAS for cls in getattr(area, "MUTANTS", ()))}
NOT_EXPRESSIBLE: dict[str, str] = {rule: why for area in AREAS for rule, why in getattr(area, "NOT_EXPRESSIBLE", {}).items()}

__all__ = ["MUST_RULES", "MUTANTS", "NOT_EXPRESSIBLE", "SHOULD_RULES", "Mutant"]
