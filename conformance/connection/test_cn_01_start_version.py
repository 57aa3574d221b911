"""CN-01: a client that opens with the AMQP 0-9-1 protocol header is answered with
connection.start announcing version 0-9, never a version above the one asked for.

Source: connection/start [server-support] (the server proposes the protocol the header
asked for, or one it knows below it); PDF 4.2.2. connection.start carries only major and
minor, so 0-9-1 is announced as 0-9."""

from amqp_conformance.fixtures.vocabulary import HANDSHAKE_ONLY, MUST, SPEC, by_hand, check, greeted, observe, rule

RULE = rule("CN-01", "The 0-9-1 protocol header is answered by connection.start with version 0-9",
            strength=MUST, guide=SPEC, section="connection.start",
            source="connection/start [server-support]; PDF 4.2.2",
            accepts="version 0-9 exactly: the header asked for 0-9-1, and start carries major and minor only")

pytestmark = HANDSHAKE_ONLY


async def test_header_is_answered_with_start_0_9(broker):
    async with by_hand(broker) as connection:
        start = await greeted(connection)
    announced = (start.version_major, start.version_minor)
    observe("version announced", f"{announced[0]}-{announced[1]}")
    check(announced == (0, 9), "the broker must answer the 0-9-1 header with connection.start version 0-9",
          expected="version_major 0, version_minor 9", actual=f"version_major {announced[0]}, "
                                                                f"version_minor {announced[1]}")
