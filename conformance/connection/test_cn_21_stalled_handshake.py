"""CN-21: a connection that never sends its protocol header, and one that stalls in the
middle of the handshake (start-ok sent, tune never answered), are closed by the broker
within some bound: how long each took is recorded.

Source: PDF 4.10.2 (a server may close a connection that does not complete its handshake
in time). INFO: the spec names no bound. RabbitMQ's handshake_timeout is 10 s; the case
watches both connections side by side for up to CAP_S."""

from amqp_conformance.fixtures.vocabulary import (HANDSHAKE_ONLY, INFO, SPEC, by_hand, concurrently, idle, observe,
                                                  rule, tuned)

RULE = rule("CN-21", "A connection that stalls before or during the handshake is closed within a bound",
            strength=INFO, guide=SPEC, section="connection.start", source="PDF 4.10.2", timing_dependent=True)

pytestmark = HANDSHAKE_ONLY

CAP_S = 15.0


async def watch_stalled(broker, what: str, *, mid_handshake: bool) -> None:
    async with by_hand(broker) as connection:
        if mid_handshake:
            await tuned(connection)
        ending = await idle(connection, CAP_S)
    observe(what, f"closed after {ending.seconds:.1f} s" if ending.ended else f"still open after {CAP_S:g} s")


async def test_stalled_handshakes_are_closed(broker):
    await concurrently(watch_stalled(broker, "no protocol header", mid_handshake=False),
                       watch_stalled(broker, "stalled after tune", mid_handshake=True))
