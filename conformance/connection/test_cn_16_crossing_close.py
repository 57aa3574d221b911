"""CN-16: once the broker has sent connection.close, it takes only close and close-ok: a
method the client sends meanwhile is discarded unanswered, and a connection.close of the
client's own that crosses the broker's is answered with close-ok.

Source: connection/close [stability]. The broker's close is provoked by connection.open
sent again after open-ok (a repeated handshake method: a connection exception, CN-20); a
broker that does not close for it leaves this rule not exercised, and so does one that
closes its socket at once after its close (Qpid Broker-J), before the client's close could
be answered. The client's channel.open (channel 7) after the broker's close must get no
open-ok."""

from amqp_conformance.fixtures.vocabulary import (HANDSHAKE_ONLY, MUST, SPEC, by_hand, check,
                                                  connection_open_again, crossing_close, not_exercised, opened,
                                                  rule)

RULE = rule("CN-16", "After its connection.close the broker answers only close and close-ok", strength=MUST,
            guide=SPEC, section="connection.close", source="connection/close [stability]")

pytestmark = HANDSHAKE_ONLY


async def test_after_its_close_the_broker_answers_a_crossing_close_only(broker):
    async with by_hand(broker) as connection:
        await opened(connection)
        crossing = await crossing_close(connection, connection_open_again())
    if crossing.close is None:
        not_exercised(f"the broker sent no connection.close for a repeated connection.open: {crossing.after}")
        return
    others = [seen for seen in crossing.after if "CloseOk" not in seen]
    check(not others, "after its connection.close the broker must discard every method but close and close-ok",
          expected="nothing but connection.close-ok", actual="; ".join(others), timed=False)
    if not crossing.close_ok and crossing.ended:
        not_exercised("the broker closed its socket right after its connection.close, without waiting for "
                      "close-ok: the client's crossing close may never have reached it")
        return
    check(crossing.close_ok, "a client close crossing the broker's must be answered with close-ok",
          expected="connection.close-ok", actual="; ".join(crossing.after) or "nothing, the socket left open")
