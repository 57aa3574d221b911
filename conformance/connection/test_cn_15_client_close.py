"""CN-15: a client's connection.close is answered with close-ok, and the connection's
resources go with it: its exclusive queues are deleted and the messages it held unacked
are ready again.

Source: PDF 2.3.7 (a close ends everything the connection owned), PDF 4.5. Whether the
broker had closed the socket by close-ok is recorded (the client may close it). The exclusive queue
and the requeued message are polled for a reply's bound: a broker cleans up a closed
connection on its own time, close-ok being the client's signal that it may go."""

from amqp_conformance.fixtures.vocabulary import (HANDSHAKE_ONLY, MUST, SPEC, by_hand, check, client_close,
                                                  closed_ok, declare_exclusive_by_hand, get_by_hand, observe, opened,
                                                  queue_gone, rule, timeouts)

RULE = rule("CN-15", "A client's connection.close gets close-ok; its exclusive queues go, its unacked messages "
            "return", strength=MUST, guide=SPEC, section="connection.close", source="PDF 2.3.7; PDF 4.5",
            accepts="the socket closed by either side after close-ok (recorded)")

pytestmark = HANDSHAKE_ONLY


async def test_client_close_is_answered_and_releases_the_connections_resources(broker):
    queue = await broker.queue(messages=[b"held unacked"])
    async with by_hand(broker) as connection:
        await opened(connection)
        exclusive = await declare_exclusive_by_hand(connection, broker, channel=1)
        await get_by_hand(connection, queue, channel=1)
        ending = await client_close(connection)
        check(closed_ok(ending), "the broker must answer connection.close with close-ok",
              expected="connection.close-ok", actual=str(ending))
        observe("after close-ok", "the broker closed the socket" if connection.ended else "the socket left open")
    check(await queue_gone(broker, exclusive, within=timeouts.REPLY),
          "the closed connection's exclusive queue must be deleted", expected="queue.declare passive refused 404",
          actual=f"{exclusive} still there after {timeouts.REPLY:g} s")
    ready = await broker.wait_ready_count(queue, 1, within=timeouts.REPLY)
    check(ready == 1, "the message the closed connection held unacked must be ready again",
          expected="1 ready message", actual=f"{ready} ready after {timeouts.REPLY:g} s")
