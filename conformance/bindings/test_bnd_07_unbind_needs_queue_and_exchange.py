"""BND-07: queue.unbind of a missing queue, or from a missing exchange, is refused with
channel.close 404.

Source: queue.unbind, field queue, rule [must-exist]; field exchange, rule [must-exist].
The method's own rule [01] calls a failed unbind a connection exception (BND-08): that
reading passes too, any connection.close. RabbitMQ documents unbind as idempotent (D3):
unbind-ok is non-strict. A channel.close with another code than 404 fails."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, check, is_refusal, new_exchange, non_strict, observe,
                                                  rule, answer_shown, unbind_queue)

RULE = rule("BND-07", "Unbinding a missing queue, or from a missing exchange, is refused with 404",
            strength=MUST, guide=SPEC, section="queue.unbind",
            source="queue/unbind/queue [must-exist]; queue/unbind/exchange [must-exist]",
            accepts="channel.close 404, or any connection.close (queue/unbind [01], BND-08); unbind-ok is "
                    "non-strict (RabbitMQ documents an idempotent unbind, D3)")

MISSING = ("queue", "exchange")


@pytest.mark.parametrize("missing", MISSING)
async def test_unbind_of_something_missing_is_refused(broker, missing):
    channel = await (await broker.connection()).channel()
    if missing == "queue":
        queue, exchange = broker.name("missing"), await new_exchange(broker, channel, "direct")
    else:
        queue, exchange = await broker.queue(), broker.name("missing")
    answer = await unbind_queue(channel, queue, exchange, "key")
    observe("answer", answer_shown(answer))
    if not is_refusal(answer):
        non_strict(f"the unbind naming a missing {missing} was answered with unbind-ok (RabbitMQ documents it, D3)",
                   expected="channel.close 404", actual=answer)
        return
    check(answer.scope == "connection" or answer.code == 404, f"the unbind naming a missing {missing} is refused "
          "with 404 (or a connection exception)", expected="channel.close 404 or a connection.close", actual=answer)
