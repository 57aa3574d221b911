"""CN-04: connection.start's locales include en_US.

Source: connection/start/locales [required-support]: the server must support en_US, so it
offers it among its locales (a space-separated list)."""

from amqp_conformance.fixtures.vocabulary import (HANDSHAKE_ONLY, MUST, SPEC, by_hand, check, greeted, observe,
                                                  rule)

RULE = rule("CN-04", "connection.start's locales include en_US", strength=MUST, guide=SPEC,
            section="connection.start", source="connection/start/locales [required-support]")

pytestmark = HANDSHAKE_ONLY


async def test_locales_include_en_us(broker):
    async with by_hand(broker) as connection:
        start = await greeted(connection)
    locales = str(start.locales or "").split()
    observe("locales", " ".join(locales))
    check("en_US" in locales, "the broker must offer the en_US locale", expected="en_US among the locales",
          actual=" ".join(locales) or "(none)")
