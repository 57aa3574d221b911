"""CN-13: with a heartbeat of H seconds agreed, a client that sends nothing for over two
intervals is dropped by the broker, without a close handshake.

Source: PDF 4.2.7 (a peer that hears nothing for two intervals or more should close the
connection without Close/Close-Ok). RabbitMQ documents dropping after two missed beats
(D21), which its timer makes land between 2H and 3H. The bound judged is 3H plus one
interval for the broker's own timer granularity, so that a broker on a loaded host is not
judged by its host; when it came is recorded. H = 1 s: the case takes about 3 s. The
silence is counted from a heartbeat the client sends after open-ok: by then the broker has
surely taken the interval (garagemq arms its read deadline only when it reads a frame after
handling tune-ok, so a client silent from connection.open on is dropped or not by a race)."""

from amqp_conformance.fixtures.vocabulary import (HANDSHAKE_ONLY, SHOULD, SPEC, by_hand, check, how_it_ends,
                                                  non_strict, observe, opened, rule, send_heartbeat)

RULE = rule("CN-13", "A client silent for over two heartbeat intervals is dropped without a close handshake",
            strength=SHOULD, guide=SPEC, section="connection.tune", source="PDF 4.2.7",
            accepts="the drop anywhere from two intervals on, within three intervals plus one for the broker's "
                    "timer; a connection.close first is non-strict", timing_dependent=True)

pytestmark = HANDSHAKE_ONLY

HEARTBEAT_S = 1
BOUND_S = 4 * HEARTBEAT_S


async def test_a_silent_client_is_dropped(broker):
    async with by_hand(broker) as connection:
        await opened(connection, heartbeat=HEARTBEAT_S)
        send_heartbeat(connection)  # its last sign of life, once the broker has surely taken the interval
        ending = await how_it_ends(connection, within=BOUND_S)
    observe("dropped after (s of client silence)", f"{ending.seconds:.2f}" if ending.ended else "not dropped")
    check(ending.ended, "a client silent for over two heartbeat intervals must be dropped",
          expected=f"the socket closed within {BOUND_S} s of the client's last octet", actual=str(ending))
    if ending.close is not None:
        non_strict(f"the broker sent {ending.close} before dropping the silent client: a peer that hears "
                   "nothing closes the socket without Close/Close-Ok (PDF 4.2.7)",
                   expected="the socket closed", actual=str(ending))
