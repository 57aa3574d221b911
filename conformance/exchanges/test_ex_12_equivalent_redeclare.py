"""EX-12: a non-passive redeclare of an existing exchange succeeds when it repeats the
exchange's type, durable flag and arguments, and is refused with a channel exception when
it does not.

Source: exchange.declare, field passive, rule [equivalent]. The scope is the spec's and
judged; the code is not named there and is recorded (RabbitMQ: 406, D5). Which arguments
a broker compares is its own: RabbitMQ compares only those it knows, so an unknown
argument that compares equal is recorded (INFO), and a differing alternate-exchange (an
argument RabbitMQ knows, which another broker may not) that is accepted is non-strict. A
broker that refuses the argument itself (a fresh exchange declared with it is refused
too) never compares it: that case is unsupported, with the fresh declare's answer."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, check, declare_exchange, is_refusal, new_exchange,
                                                  non_strict, observe, rule, answer_shown, try_new_exchange,
                                                  unsupported)

RULE = rule("EX-12", "A redeclare must repeat the exchange's properties, else a channel exception",
            strength=MUST, guide=SPEC, section="exchange.declare", source="exchange/declare/passive [equivalent]",
            accepts="any channel.close code for a difference (recorded; RabbitMQ 406, D5); a differing unknown "
                    "argument recorded either way; a differing alternate-exchange accepted is non-strict")

# How the redeclare differs from the first declare (a direct exchange, transient, no arguments).
REDECLARES = {
    "equal": {},
    "durable": {"durable": True},
    "alternate-exchange": {"arguments": {"alternate-exchange": "amq.fanout"}},
    "unknown-argument": {"arguments": {"x-amqpc-unknown": "differs"}},
}


@pytest.mark.parametrize("difference", REDECLARES)
async def test_redeclare_is_answered_by_equivalence(broker, difference):
    connection = await broker.connection()
    exchange = await new_exchange(broker, await connection.channel(), "direct")
    answer = await declare_exchange(await connection.channel(), exchange, "direct", **REDECLARES[difference])
    observe("answer", answer_shown(answer))
    if difference == "equal":
        check(not is_refusal(answer), "an equal redeclare succeeds", expected="exchange.declare-ok", actual=answer)
    elif difference == "unknown-argument":
        return  # which arguments take part in the comparison is the broker's choice: recorded only
    elif not is_refusal(answer) and difference == "alternate-exchange":
        non_strict("a redeclare with another alternate-exchange was accepted (the broker may not know the argument)",
                   expected="a channel exception", actual=answer)
    else:
        if difference == "alternate-exchange" and is_refusal(answer) and answer.scope != "channel":
            # Refused beyond the channel: is it the argument the broker refuses, not the difference?
            _, fresh = await try_new_exchange(broker, await (await broker.connection()).channel(), "direct",
                                              **REDECLARES[difference])
            if is_refusal(fresh):
                unsupported("the broker refuses the alternate-exchange argument, so it never compares it",
                            f"a fresh exchange.declare with it: {answer_shown(fresh)}")
        check(is_refusal(answer) and answer.scope == "channel", f"a redeclare with another {difference} is refused "
              "with a channel exception", expected="channel.close (any code)", actual=answer)
