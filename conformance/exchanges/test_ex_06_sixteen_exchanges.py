"""EX-06: a broker should let at least 16 exchanges coexist in one virtual host: sixteen
fresh exchanges declared one after another are each answered with declare-ok (the
number declared is reported).

Source: exchange.declare, rule [minimum] (a SHOULD). Fewer is non-strict."""

from amqp_conformance.fixtures.vocabulary import SHOULD, SPEC, is_refusal, non_strict, observe, rule, try_new_exchange

RULE = rule("EX-06", "At least 16 exchanges can coexist in one vhost",
            strength=SHOULD, guide=SPEC, section="exchange.declare", source="exchange/declare [minimum]",
            accepts="fewer is non-strict")

MINIMUM = 16


async def test_sixteen_exchanges_coexist(broker):
    connection = await broker.connection()
    channel, declared = await connection.channel(), 0
    while declared < MINIMUM:
        _, answer = await try_new_exchange(broker, channel, "direct")
        if is_refusal(answer):
            break
        declared += 1
    observe("exchanges declared (up to 16)", declared)
    if declared < MINIMUM:
        non_strict(f"only {declared} exchanges could be declared beside the vhost's own",
                   expected=f"{MINIMUM} declare-ok", actual=f"{declared}, then {answer}")
