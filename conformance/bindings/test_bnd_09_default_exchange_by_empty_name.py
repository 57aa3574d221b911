"""BND-09: an empty exchange name in queue.bind and queue.unbind means the default
exchange: both are answered with their ok.

Source: queue.bind, field exchange, rule [default-exchange]; queue.unbind, field
exchange, rule [default-exchange]. RabbitMQ documents that the default exchange only
takes publishes and refuses bind and unbind with channel.close 403 (D4): non-strict. Any
other close fails."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, bind_queue, check, is_refusal, non_strict, observe, rule,
                                                  answer_shown, unbind_queue)

RULE = rule("BND-09", "An empty exchange name in bind and unbind means the default exchange",
            strength=MUST, guide=SPEC, section="queue.bind",
            source="queue/bind/exchange [default-exchange]; queue/unbind/exchange [default-exchange]",
            accepts="channel.close 403 is non-strict (RabbitMQ documents it, D4)")

METHODS = {"bind": bind_queue, "unbind": unbind_queue}


@pytest.mark.parametrize("method", METHODS)
async def test_empty_exchange_name_is_the_default_exchange(broker, method):
    queue = await broker.queue()
    answer = await METHODS[method](await (await broker.connection()).channel(), queue, "", queue)
    observe("answer", answer_shown(answer))
    if is_refusal(answer) and (answer.scope, answer.code) == ("channel", 403):
        non_strict(f"queue.{method} with the default exchange was refused with 403 (RabbitMQ documents it, D4)",
                   expected=f"queue.{method}-ok", actual=answer)
        return
    check(not is_refusal(answer), f"queue.{method} with an empty exchange name acts on the default exchange",
          expected=f"queue.{method}-ok", actual=answer)
