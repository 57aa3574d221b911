"""CH-11: a channel publishing flat out does not starve another channel of the same
connection: the other channel's synchronous round trips stay answered within the reply
bound while the flood goes on. Their latencies are recorded.

Source: PDF 4.3 (channels share a connection; the spec asks fair sharing of it). Both
channels write into one TCP stream, so each round trip waits behind the publishes sent
before it: the flood goes in bursts, and what is judged is the broker's side, a bounded
answer, not a figure that the machine's load would move."""

from amqp_conformance.fixtures.vocabulary import SHOULD, SPEC, check, observe, round_trips_during_a_flood, rule, timeouts

RULE = rule("CH-11", "A flooding channel does not starve another channel of its connection",
            strength=SHOULD, guide=SPEC, section="channel.open", source="PDF 4.3",
            accepts="any answer, a difference is non-strict; latencies recorded")

ROUND_TRIPS = 10


async def test_a_flood_does_not_starve_a_sibling(broker):
    connection = await broker.connection()
    flooding, waiting = await connection.channel(), await connection.channel()
    flood = await round_trips_during_a_flood(broker, flooding, waiting, ROUND_TRIPS)
    observe("round trips during the flood (s)", [round(seconds, 3) for seconds in flood.round_trips])
    observe("messages published by the flood", flood.published)
    check(len(flood.round_trips) == ROUND_TRIPS and max(flood.round_trips) < timeouts.REPLY,
          "every round trip on the other channel is answered within the reply bound during the flood",
          expected=f"{ROUND_TRIPS} answers, each within {timeouts.REPLY:.1f} s", actual=flood.problem or flood.round_trips)
