"""EX-13: a broker takes both durable and transient exchanges, and a restart keeps the
durable ones and drops the transient ones: after it, a passive declare of the durable
exchange succeeds and one of the transient exchange is refused with 404.

Source: exchange.declare, field durable, rule [support], and the field's text (durable
exchanges survive a restart). The restart half needs a broker the suite restarts itself
(its own node, stopped cleanly and started again): by URL it is unsupported, saying so."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, answer_shown, check, exchange_exists, is_refusal,
                                                  new_exchange, observe, restart, rule)

RULE = rule("EX-13", "Durable and transient exchanges exist; a restart keeps only the durable ones",
            strength=MUST, guide=SPEC, section="exchange.declare", source="exchange/declare/durable [support]",
            needs=("restart",), accepts="declare-ok for both; after the restart declare-ok and channel.close 404")

# A process fault: `-m "not fault"` leaves it out of quick runs.
pytestmark = pytest.mark.fault


@pytest.mark.case("both-kinds")
async def test_durable_and_transient_exchanges_are_declared(broker):
    channel = await (await broker.connection()).channel()
    for durable in (True, False):
        await new_exchange(broker, channel, "direct", durable=durable)


@pytest.mark.case("restart")
async def test_restart_keeps_only_the_durable_exchange(crashable_broker):
    channel = await (await crashable_broker.connection()).channel()
    durable = await new_exchange(crashable_broker, channel, "direct", durable=True)
    transient = await new_exchange(crashable_broker, channel, "direct", durable=False)
    observe("restart took", f"{await restart(crashable_broker):.1f} s")
    after = await crashable_broker.connection()
    kept, dropped = await exchange_exists(await after.channel(), durable), \
        await exchange_exists(await after.channel(), transient)
    check(not is_refusal(kept), "the durable exchange exists after the restart", expected="exchange.declare-ok",
          actual=answer_shown(kept))
    check(is_refusal(dropped) and (dropped.scope, dropped.code) == ("channel", 404),
          "the transient exchange is gone after the restart", expected="channel.close 404",
          actual=answer_shown(dropped))
