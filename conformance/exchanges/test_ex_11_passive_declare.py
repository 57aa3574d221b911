"""EX-11: a passive exchange.declare only asks whether the exchange exists: for a
missing one the channel is closed with 404; an existing one is answered with declare-ok
and left as it was, whatever type, durable flag or arguments the request carried.

Source: exchange.declare, field passive, rule [not-found] and the field's text. With
no-wait set as well, the spec would have the declare take no effect; RabbitMQ documents
that it still raises (D7): the verdict is taken with no-wait off, and what a no-wait
passive declare of a missing exchange does is recorded (INFO)."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, RoutingProbe, check, declare_exchange, expect_bound,
                                                  expect_closed, is_refusal, new_exchange, observe_answer, rule, spec)

RULE = rule("EX-11", "A passive exchange.declare checks existence and changes nothing",
            strength=MUST, guide=SPEC, section="exchange.declare",
            source="exchange/declare/passive [not-found]",
            accepts="channel.close 404 for a missing exchange; with no-wait, anything (recorded, D7)")


@pytest.mark.case("missing")
async def test_passive_declare_of_a_missing_exchange_is_refused(broker):
    channel = await (await broker.connection()).channel()
    channel.send(spec.Exchange.Declare(exchange=broker.name("missing"), passive=True))
    await expect_closed(channel, code=404, requirement="a passive declare of a missing exchange closes the channel")


@pytest.mark.case("existing")
async def test_passive_declare_leaves_an_existing_exchange_unchanged(broker):
    connection = await broker.connection()
    channel = await connection.channel()
    exchange, queue, key = await new_exchange(broker, channel, "direct"), await broker.queue(), broker.name("key")
    answer = await declare_exchange(channel, exchange, "fanout", passive=True, durable=True,
                                    arguments={"x-amqpc-unknown": 1})
    check(not is_refusal(answer), "a passive declare of an existing exchange succeeds, whatever else it says",
          expected="exchange.declare-ok", actual=answer)
    answer = await declare_exchange(channel, exchange, "direct")
    check(not is_refusal(answer), "the exchange kept its type and flags (an equal non-passive declare succeeds)",
          expected="exchange.declare-ok", actual=answer)
    probe = await RoutingProbe.open(broker, connection)
    await expect_bound(probe.channel, queue, exchange, key)
    routed, other = await probe.copies(queue, exchange, key), await probe.copies(queue, exchange, "other")
    check((routed, other) == (1, 0), "the exchange still routes as a direct exchange",
          expected="1 copy by its key, 0 by another", actual=f"{routed} and {other}")


@pytest.mark.case("no-wait")
async def test_no_wait_passive_declare_of_a_missing_exchange_is_recorded(broker):
    channel = await (await broker.connection()).channel()
    channel.send(spec.Exchange.Declare(exchange=broker.name("missing"), passive=True, nowait=True))
    await observe_answer("passive no-wait declare of a missing exchange", channel.barrier(),
                         lambda _: "no effect: a later method on the channel was answered")
