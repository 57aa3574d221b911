"""CN-12: with a heartbeat of H seconds agreed, an idle broker sends heartbeat frames
often enough that no gap between its frames is much over H.

Source: PDF 4.2.7; ERRATA 12, 29 (a heartbeat is an 8-octet frame of type 8 on channel 0).
"Much over H" is taken as over 2H: a client that hears nothing for two intervals may drop
the connection (PDF 4.2.7), so a longer gap would get the broker dropped. H = 1 s, the
shortest a client can ask, watched for 3 s (long enough for three beats, as short as the
rule allows); gaps are measured from each frame's arrival, and a harness that was late
itself is told apart by the judge (its lag against the 1 s bound)."""

from amqp_conformance.fixtures.vocabulary import SHOULD, SPEC, check, heartbeat_arrivals, observe, rule

RULE = rule("CN-12", "An idle broker sends heartbeats with no gap much over the agreed interval",
            strength=SHOULD, guide=SPEC, section="connection.tune", source="PDF 4.2.7; ERRATA 12; ERRATA 29",
            accepts="gaps up to twice the interval (a peer may drop after two silent intervals)",
            timing_dependent=True)

HEARTBEAT_S = 1
WATCHED_S = 3.0


async def test_idle_broker_sends_heartbeats(broker):
    connection = await broker.connection(heartbeat=HEARTBEAT_S)
    agreed = connection.heartbeat
    observe("heartbeat agreed", agreed)
    check(agreed == HEARTBEAT_S, "the broker must take the heartbeat the client asks for",
          expected=f"{HEARTBEAT_S} s", actual=f"{agreed} s")
    arrivals = await heartbeat_arrivals(connection, WATCHED_S)
    marks = [0.0, *arrivals, WATCHED_S]
    widest = max(later - earlier for earlier, later in zip(marks, marks[1:]))
    observe("heartbeats heard", ", ".join(f"{at:.2f}" for at in arrivals) or "none")
    check(widest <= 2 * HEARTBEAT_S, "an idle broker must send heartbeats leaving no gap much over the interval",
          expected=f"no gap over {2 * HEARTBEAT_S} s in {WATCHED_S:g} s", actual=f"a gap of {widest:.2f} s")
