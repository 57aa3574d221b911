"""EX-04: the nameless default exchange cannot be declared or deleted by its empty name:
exchange.declare and exchange.delete of "" are refused.

Source: the spec's exchange class, rule [default-access]; ERRATA 14. The spec names no
reply code: any close of the channel or of the connection passes; RabbitMQ's channel.close
403 (D4) is the choice recorded, another code or scope is non-strict."""

import pytest

from amqp_conformance.fixtures.vocabulary import MUST, SPEC, expect_refused, rule, spec

RULE = rule("EX-04", "The default exchange cannot be declared or deleted by the empty name",
            strength=MUST, guide=SPEC, section="exchange.declare",
            source="exchange [default-access]; ERRATA 14",
            accepts="any close of the channel or the connection (another than RabbitMQ's channel.close 403, "
                    "D4, is non-strict)")

ATTEMPTS = {"declare": spec.Exchange.Declare(exchange="", exchange_type="direct"),
            "delete": spec.Exchange.Delete(exchange="")}


@pytest.mark.parametrize("attempt", ATTEMPTS)
async def test_default_exchange_is_out_of_reach(broker, attempt):
    channel = await (await broker.connection()).channel()
    channel.send(ATTEMPTS[attempt])
    await expect_refused(channel, code=403, requirement=f"exchange.{attempt} of the default exchange is refused")
