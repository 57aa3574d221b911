"""EX-07: names beginning with "amq." are reserved for the pre-declared exchanges: a
non-passive declare of a new "amq." name is refused with channel.close 403, a passive
declare of an existing one succeeds, and a pre-declared exchange cannot be deleted.

Source: exchange.declare, field exchange, rule [reserved] (its code: access-refused);
PDF 2.1.3.2. The spec names no code for the refused delete: any close passes, RabbitMQ's
channel.close 403 (D9) is the choice recorded, another is non-strict. A broker that
deletes the pre-declared exchange gets it declared again, so that the run goes on."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, check, declare_exchange, exchange_exists, expect_closed,
                                                  expect_refused, is_refusal, observe, own_exchange, rule, answer_shown, spec)

RULE = rule("EX-07", "Exchange names beginning with amq. are reserved",
            strength=MUST, guide=SPEC, section="exchange.declare",
            source="exchange/declare/exchange [reserved]; PDF 2.1.3.2",
            accepts="for the delete of a pre-declared exchange any close of the channel or the connection "
                    "(another than RabbitMQ's channel.close 403, D9, is non-strict)")

# The pre-declared exchange the delete is tried on: not amq.direct, which the suite's
# synchronous barrier declares passively on every channel.
PREDECLARED_VICTIM = ("amq.fanout", "fanout")

@pytest.mark.case("new-name")
async def test_new_amq_name_is_refused(broker):
    channel = await (await broker.connection()).channel()
    name = f"amq.{broker.name('x')}"
    own_exchange(broker, name)  # in case the broker creates it
    channel.send(spec.Exchange.Declare(exchange=name, exchange_type="direct"))
    await expect_closed(channel, code=403, requirement="a non-passive declare of a new amq. name is refused")

@pytest.mark.case("passive")
async def test_passive_declare_of_a_predeclared_exchange_succeeds(broker):
    answer = await exchange_exists(await (await broker.connection()).channel(), "amq.fanout", "fanout")
    check(not is_refusal(answer), "a passive declare of amq.fanout succeeds", expected="exchange.declare-ok",
          actual=answer)

@pytest.mark.case("delete")
async def test_predeclared_exchange_cannot_be_deleted(broker):
    channel = await (await broker.connection()).channel()
    name, exchange_type = PREDECLARED_VICTIM
    channel.send(spec.Exchange.Delete(exchange=name))
    try:
        await expect_refused(channel, code=403, requirement=f"the delete of {name} is refused")
    finally:  # on a connection of its own: the refusal may have closed the first one
        after = await broker.connection()
        if is_refusal(await exchange_exists(await after.channel(), name, exchange_type)):
            restored = await declare_exchange(await after.channel(), name, exchange_type, durable=True)
            observe(f"{name} declared again after the broker deleted it", answer_shown(restored))
