"""BND-04: the binding of a durable queue to a durable exchange is durable too: after a
restart it still routes a matching publish to the queue.

Source: queue.bind, rule [durable-exchange]. It needs a broker the suite restarts itself
(its own node, stopped cleanly and started again): by URL it is unsupported, saying so."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, RoutingProbe, check, exchange_exists, expect_bound,
                                                  is_refusal, new_exchange, observe, restart, rule)

RULE = rule("BND-04", "A durable queue's binding to a durable exchange routes after a restart",
            strength=MUST, guide=SPEC, section="queue.bind", source="queue/bind [durable-exchange]",
            needs=("restart",), accepts="one copy routed after the restart")

# A process fault: `-m "not fault"` leaves it out of quick runs.
pytestmark = pytest.mark.fault


async def test_durable_binding_routes_after_restart(crashable_broker):
    channel = await (await crashable_broker.connection()).channel()
    queue, key = await crashable_broker.queue(), crashable_broker.name("key")
    exchange = await new_exchange(crashable_broker, channel, "direct", durable=True)
    await expect_bound(channel, queue, exchange, key)
    observe("restart took", f"{await restart(crashable_broker):.1f} s")
    probe = await RoutingProbe.open(crashable_broker)
    kept = await exchange_exists(await probe.channel.connection.channel(), exchange)
    check(not is_refusal(kept), "the durable exchange exists after the restart (its binding's end)",
          expected="exchange.declare-ok", actual=kept)
    copies = await probe.copies(queue, exchange, key)
    check(copies == 1, "the binding routes after the restart", expected="1 copy", actual=f"{copies}")
