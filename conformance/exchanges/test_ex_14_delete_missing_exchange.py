"""EX-14: deleting an exchange that does not exist closes the channel with 404.

Source: exchange.delete, field exchange, rule [exists]. RabbitMQ documents delete as
idempotent (D1): a delete-ok is non-strict. Any other close fails."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, check, delete_exchange, is_refusal, non_strict, observe,
                                                  rule, answer_shown)

RULE = rule("EX-14", "Deleting a missing exchange closes the channel with 404",
            strength=MUST, guide=SPEC, section="exchange.delete", source="exchange/delete/exchange [exists]",
            accepts="delete-ok is non-strict (RabbitMQ documents an idempotent delete, D1)")


async def test_delete_of_a_missing_exchange_is_refused(broker):
    answer = await delete_exchange(await (await broker.connection()).channel(), broker.name("missing"))
    observe("answer", answer_shown(answer))
    if not is_refusal(answer):
        non_strict("the delete of a missing exchange was answered with delete-ok (RabbitMQ documents it, D1)",
                   expected="channel.close 404", actual=answer)
        return
    check((answer.scope, answer.code) == ("channel", 404), "the delete of a missing exchange is refused with 404",
          expected="channel.close 404", actual=answer)
