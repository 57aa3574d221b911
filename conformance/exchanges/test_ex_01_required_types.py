"""EX-01: a broker declares exchanges of the two types every broker must implement,
`direct` and `fanout`: a non-passive declare of a fresh name of either type is answered
with declare-ok.

Source: the spec's exchange class, rule [required-types]. Nothing else passes: a refusal
of either type, or silence, breaks it."""

import pytest

from amqp_conformance.fixtures.vocabulary import MUST, REQUIRED_TYPES, SPEC, check, is_refusal, rule, try_new_exchange

RULE = rule("EX-01", "A broker declares direct and fanout exchanges",
            strength=MUST, guide=SPEC, section="exchange.declare", source="exchange [required-types]",
            accepts="declare-ok only")


@pytest.mark.parametrize("exchange_type", REQUIRED_TYPES)
async def test_required_type_is_declared(broker, exchange_type):
    _, answer = await try_new_exchange(broker, await (await broker.connection()).channel(), exchange_type)
    check(not is_refusal(answer), f"a {exchange_type} exchange is declared", expected="exchange.declare-ok",
          actual=answer)
