"""EX-05: a broker may offer exchange types beyond the spec's four, and every such type's
name begins with "x-".

Source: the spec's exchange class, rule [extensions]; PDF 3.1.3.6 and 3.1.10. Only the
management API lists a broker's types (AMQP has no method for it): without it the rule is
unsupported, saying so. Which extra types there are is recorded."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, PREDECLARED, SPEC, check, exchange_types, observe, rule,
                                                  timeouts)

RULE = rule("EX-05", "Exchange types beyond the spec's carry an x- prefix",
            strength=MUST, guide=SPEC, section="exchange.declare",
            source="exchange [extensions]; PDF 3.1.3.6; PDF 3.1.10",
            accepts="any number of extra types (recorded), each named x-...; unsupported without a management API")

# The backstop covers starting the worker's node with the management API (its first such case).
pytestmark = pytest.mark.timeout(timeouts.NODE_BACKSTOP_S)


async def test_extra_types_carry_the_x_prefix(management):
    offered = exchange_types(management.api)
    extra = [name for name in offered if name not in PREDECLARED]
    observe("exchange types", ", ".join(offered))
    check(all(name.startswith("x-") for name in extra), "every exchange type beyond the spec's is named x-...",
          expected="x-... only", actual=", ".join(extra) or "none beyond the spec's")
