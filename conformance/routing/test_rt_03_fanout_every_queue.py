"""RT-03: a fanout exchange gives every bound queue one copy of each message, whatever the
routing key and the binding keys.

Source: PDF 3.1.3.2 (the fanout exchange type)."""

from amqp_conformance.fixtures.vocabulary import MUST, SPEC, Binding, Message, expect_routes, route, rule

RULE = rule("RT-03", "A fanout exchange copies each message to every bound queue, keys ignored",
            strength=MUST, guide=SPEC, section="exchange.declare.type", source="PDF 3.1.3.2")

BINDINGS = {"no key": Binding(""), "key a": Binding("a"), "key b": Binding("b")}
MESSAGES = {"keyed a": Message("a"), "keyed zzz": Message("zzz"), "no key": Message("")}
EVERY_MESSAGE = set(MESSAGES)


async def test_fanout_exchange_copies_to_every_bound_queue(broker):
    seen = await route(broker, "fanout", BINDINGS, MESSAGES)
    expect_routes(seen, {label: EVERY_MESSAGE for label in BINDINGS},
                  "a fanout exchange gives every bound queue each message, whatever the keys")
