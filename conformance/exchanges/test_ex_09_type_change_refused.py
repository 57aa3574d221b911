"""EX-09: an exchange cannot change its type: redeclaring an existing exchange with
another type is refused, by the spec with connection.close 530.

Source: exchange.declare, field type, rule [typed]. RabbitMQ documents a channel.close
406 instead (D5, equivalence failures): non-strict. Any other close is a refusal all the
same, non-strict for its code; a declare-ok fails."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, check, declare_exchange, is_refusal, new_exchange,
                                                  non_strict, observe, rule, answer_shown)

RULE = rule("EX-09", "Redeclaring an exchange with another type is refused",
            strength=MUST, guide=SPEC, section="exchange.declare", source="exchange/declare/type [typed]",
            accepts="connection.close 530; channel.close 406 (RabbitMQ, D5) or any other close is non-strict")


async def test_redeclare_with_another_type_is_refused(broker):
    connection = await broker.connection()
    exchange = await new_exchange(broker, await connection.channel(), "direct")
    answer = await declare_exchange(await connection.channel(), exchange, "fanout")
    observe("answer", answer_shown(answer))
    check(is_refusal(answer), "a redeclare with another type is refused", expected="connection.close 530",
          actual=answer)
    if (answer.scope, answer.code) == ("channel", 406):
        non_strict("refused with channel.close 406, not the spec's connection.close 530 (RabbitMQ documents it, D5)",
                   expected="connection.close 530", actual=answer)
    elif (answer.scope, answer.code) != ("connection", 530):
        non_strict("refused with another close than the spec's connection.close 530", expected="connection.close 530",
                   actual=answer)
