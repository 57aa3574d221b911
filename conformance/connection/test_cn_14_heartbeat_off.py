"""CN-14: a client that answers tune with heartbeat 0 turns heartbeats off: its idle
connection is not dropped for silence, and a heartbeat it sends later is still taken.

Source: connection/tune-ok heartbeat doc (0: the client wants no heartbeat); PDF 4.2.7.
The default run idles 4 s: a broker that kept any heartbeat a client may ask (1 s and up)
while the client is silent would have dropped it by then (CN-13). The full claim (idle
longer than three times the broker's own proposal, 3 x 60 s on RabbitMQ) runs on demand
(-m long). RabbitMQ's own clients send 0 only when both sides want 0 (D21): a raw tune-ok 0
is the client's choice, which the spec gives it. A round trip (channel.open-ok) after the
client's heartbeat proves the broker read it and lived on."""

import pytest

from amqp_conformance.fixtures.vocabulary import (HANDSHAKE_ONLY, MUST, SPEC, by_hand, check, idle, observe,
                                                  opened, opened_channel, round_trip, rule, send_heartbeat)

RULE = rule("CN-14", "With heartbeat 0 agreed an idle connection lives on and a later client heartbeat is taken",
            strength=MUST, guide=SPEC, section="connection.tune-ok", source="PDF 4.2.7",
            accepts="heartbeats the broker sends anyway are recorded, not judged", timing_dependent=True)

pytestmark = HANDSHAKE_ONLY

DEFAULT_IDLE_S = 4.0


async def idle_without_heartbeats(broker, seconds: float | None) -> None:
    async with by_hand(broker) as connection:
        await opened(connection, heartbeat=0)
        proposal = connection.tune.heartbeat
        window = seconds if seconds is not None else 3 * proposal
        observe("idle", f"{window:g} s (the broker proposed heartbeat {proposal})")
        ending = await idle(connection, window)
        check(not ending.ended and ending.close is None, "with heartbeat 0 an idle connection must not be dropped",
              expected=f"the connection open after {window:g} s of client silence", actual=str(ending))
        send_heartbeat(connection)
        answer = await round_trip(connection)
    check(opened_channel(answer), "a client heartbeat after tune-ok must be taken, the connection going on",
          expected="channel.open-ok after the heartbeat", actual=str(answer))


@pytest.mark.case("idle-4s")
async def test_idle_connection_without_heartbeats_lives_on(broker):
    await idle_without_heartbeats(broker, DEFAULT_IDLE_S)


@pytest.mark.case("idle-3-proposals")
@pytest.mark.long
async def test_idle_connection_outlives_three_proposed_intervals(broker):
    await idle_without_heartbeats(broker, None)
