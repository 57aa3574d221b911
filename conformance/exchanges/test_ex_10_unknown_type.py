"""EX-10: declaring an exchange of a type the broker does not implement is refused; the
spec's answer is connection.close 503 (command-invalid).

Source: exchange.declare, field type, rule [support] (the client must not ask; its
on-failure code is command-invalid). The refusal is the MUST: no exchange of an unknown
type may come to exist. The close's scope and code are judged non-strict: RabbitMQ
answered connection.close 503 up to 3.13.2 (3.10.8 and 3.12.14 still do) and channel.close
406 from 3.13.3 and 4.0 (rabbit_exchange.erl check_type/1, changed by rabbitmq-server
pull request 11214, merged 2024-05-12, which made it a precondition failure so that one
bad declare no longer closes the connection's other channels). No deviation of D1..D30
documents it, so the reason names that source line; the code seen is recorded."""

from amqp_conformance.fixtures.vocabulary import (MUST, NO_SUCH_TYPE, SPEC, check, declare_exchange, is_refusal,
                                                  non_strict, observe, own_exchange, rule, answer_shown)

RULE = rule("EX-10", "Declaring an exchange of an unknown type is refused (the spec: connection.close 503)",
            strength=MUST, guide=SPEC, section="exchange.declare", source="exchange/declare/type [support]",
            accepts="any close of the channel or the connection; another than connection.close 503 is non-strict "
                    "(RabbitMQ from 3.13.3 and 4.0: channel.close 406, rabbit_exchange.erl check_type/1, "
                    "rabbitmq-server#11214; no D entry)")


async def test_unknown_type_is_refused(broker):
    name = broker.name("x")
    answer = await declare_exchange(await (await broker.connection()).channel(), name, NO_SUCH_TYPE)
    observe("answer", answer_shown(answer))
    if not is_refusal(answer):
        own_exchange(broker, name)
    check(is_refusal(answer), "a declare of a type the broker lacks is refused", expected="connection.close 503",
          actual=answer)
    if (answer.scope, answer.code) != ("connection", 503):
        non_strict("refused with another close than the spec's connection.close 503 (command-invalid); RabbitMQ "
                   "answers channel.close 406 from 3.13.3 and 4.0 (rabbit_exchange.erl check_type/1, "
                   "rabbitmq-server#11214), a choice no D entry documents",
                   expected="connection.close 503", actual=answer)
