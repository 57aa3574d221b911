"""BND-11: queue.unbind removes the one binding with that queue, exchange, routing key and
arguments, and no other: of two keys on a direct exchange, the other key still routes;
of two headers bindings, an unbind with arguments that match neither removes nothing, and
one with the arguments of the first removes only the first.

Source: the text of queue.unbind. The answer to the unbind that matches no binding is
recorded, not judged (the spec's BND-07 and RabbitMQ's D3 disagree on it). A broker
without headers exchanges is unsupported for that case."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, check, expect_bound, is_refusal, new_exchange, observe,
                                                  RoutingProbe, rule, answer_shown, unbind_queue)

RULE = rule("BND-11", "queue.unbind removes only the binding with that key and those arguments",
            strength=MUST, guide=SPEC, section="queue.unbind", source="queue/unbind",
            accepts="any answer to an unbind that matches no binding (recorded)")


def match(value: str) -> dict:
    return {"x-match": "all", "amqpc-binding": value}


async def expect_unbound(channel, queue, exchange, key="", arguments=None):
    answer = await unbind_queue(channel, queue, exchange, key, arguments)
    check(not is_refusal(answer), "the unbind of an existing binding is accepted", expected="queue.unbind-ok",
          actual=answer)


@pytest.mark.case("routing-key")
async def test_unbind_by_key_keeps_the_other_key(broker):
    probe, queue = await RoutingProbe.open(broker), await broker.queue()
    exchange, kept, removed = await new_exchange(broker, probe.channel, "direct"), broker.name("a"), broker.name("b")
    await expect_bound(probe.channel, queue, exchange, kept)
    await expect_bound(probe.channel, queue, exchange, removed)
    await expect_unbound(probe.channel, queue, exchange, removed)
    copies = (await probe.copies(queue, exchange, kept), await probe.copies(queue, exchange, removed))
    check(copies == (1, 0), "only the binding with the unbind's key is gone",
          expected="1 copy by the other key, 0 by the unbound one", actual=copies)


@pytest.mark.case("arguments")
async def test_unbind_by_arguments_keeps_the_other_binding(broker):
    connection = await broker.connection()
    probe, queue = await RoutingProbe.open(broker, connection), await broker.queue()
    exchange = await new_exchange(broker, probe.channel, "headers")
    await expect_bound(probe.channel, queue, exchange, "", match("one"))
    await expect_bound(probe.channel, queue, exchange, "", match("two"))
    observe("answer to an unbind matching no binding",
            answer_shown(await unbind_queue(await connection.channel(), queue, exchange, "", match("three"))))
    copies = (await probe.copies(queue, exchange, "", {"amqpc-binding": "one"}),
              await probe.copies(queue, exchange, "", {"amqpc-binding": "two"}))
    check(copies == (1, 1), "an unbind whose arguments match no binding removes nothing",
          expected="1 copy through each binding", actual=copies)
    await expect_unbound(probe.channel, queue, exchange, "", match("one"))
    copies = (await probe.copies(queue, exchange, "", {"amqpc-binding": "one"}),
              await probe.copies(queue, exchange, "", {"amqpc-binding": "two"}))
    check(copies == (0, 1), "the unbind removes only the binding with its arguments",
          expected="0 copies through the unbound one, 1 through the other", actual=copies)
