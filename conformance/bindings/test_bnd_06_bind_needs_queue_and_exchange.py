"""BND-06: queue.bind names a queue and an exchange that exist: binding a missing queue,
or binding to a missing exchange, closes the channel with 404.

Source: queue.bind, field queue, rule [must-exist]; field exchange, rule
[exchange-existence]."""

import pytest

from amqp_conformance.fixtures.vocabulary import MUST, SPEC, expect_closed, new_exchange, rule, spec

RULE = rule("BND-06", "Binding a missing queue, or to a missing exchange, closes the channel with 404",
            strength=MUST, guide=SPEC, section="queue.bind",
            source="queue/bind/queue [must-exist]; queue/bind/exchange [exchange-existence]",
            accepts="channel.close 404 only")

MISSING = ("queue", "exchange")


@pytest.mark.parametrize("missing", MISSING)
async def test_bind_of_something_missing_is_refused(broker, missing):
    connection = await broker.connection()
    channel = await connection.channel()
    if missing == "queue":
        queue, exchange = broker.name("missing"), await new_exchange(broker, channel, "direct")
    else:
        queue, exchange = await broker.queue(), broker.name("missing")
    channel.send(spec.Queue.Bind(queue=queue, exchange=exchange, routing_key="key"))
    await expect_closed(channel, code=404, requirement=f"a bind naming a missing {missing} closes the channel")
