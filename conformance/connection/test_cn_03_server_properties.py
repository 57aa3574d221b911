"""CN-03: connection.start's server-properties name the server: product, version,
platform, copyright, information, host.

Source: connection/start/server-properties [required-fields] (a SHOULD: the fields are
for humans and logs). RabbitMQ documents that it leaves out `host` (ERRATA 23, deviation
D18 of the catalogue): that alone is non-strict with D18 named; any other missing field is
non-strict too."""

from amqp_conformance.fixtures.vocabulary import (HANDSHAKE_ONLY, SHOULD, SPEC, by_hand, greeted, non_strict,
                                                  observe, rule)

RULE = rule("CN-03", "connection.start's server-properties carry product, version, platform, copyright, "
            "information and host", strength=SHOULD, guide=SPEC, section="connection.start",
            source="connection/start/server-properties [required-fields]",
            accepts="a missing host is non-strict naming D18 (RabbitMQ documents leaving it out)")

pytestmark = HANDSHAKE_ONLY

NAMING_FIELDS = ("product", "version", "platform", "copyright", "information", "host")


async def test_server_properties_name_the_server(broker):
    async with by_hand(broker) as connection:
        start = await greeted(connection)
    present = sorted((start.server_properties or {}).keys())
    observe("server-properties", ", ".join(present))
    missing = [name for name in NAMING_FIELDS if name not in present]
    if missing:
        documented = " (RabbitMQ documents leaving out host: D18, ERRATA 23)" if "host" in missing else ""
        non_strict(f"server-properties lack {', '.join(missing)}{documented}",
                   expected=", ".join(NAMING_FIELDS), actual=", ".join(present))
