"""EX-02: a broker should also implement the `topic` and `headers` exchange types: a
declare of a fresh name of either type is answered with declare-ok.

Source: the spec's exchange class, rule [recommended-types] (a SHOULD). A refusal is
non-strict. The routing rules of topic and headers exchanges (RT-04..RT-07) ask the same
question through `exchange_type_missing`, once a session, and are unsupported with its
evidence on a broker without the type."""

import pytest

from amqp_conformance.fixtures.vocabulary import (RECOMMENDED_TYPES, SHOULD, SPEC, is_refusal, non_strict, observe,
                                                  rule, answer_shown, try_new_exchange)

RULE = rule("EX-02", "A broker declares topic and headers exchanges",
            strength=SHOULD, guide=SPEC, section="exchange.declare", source="exchange [recommended-types]",
            accepts="a refusal is non-strict")


@pytest.mark.parametrize("exchange_type", RECOMMENDED_TYPES)
async def test_recommended_type_is_declared(broker, exchange_type):
    _, answer = await try_new_exchange(broker, await (await broker.connection()).channel(), exchange_type)
    observe(f"{exchange_type} exchange", answer_shown(answer))
    if is_refusal(answer):
        non_strict(f"the broker has no {exchange_type} exchange type (a SHOULD of the spec)",
                   expected="exchange.declare-ok", actual=answer)
