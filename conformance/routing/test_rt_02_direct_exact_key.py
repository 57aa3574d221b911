"""RT-02: a direct exchange routes a message to exactly the queues bound with a key equal
to the message's routing key, octet for octet: case counts, the empty key is a key like
any other, two queues bound with the same key both get the message, a prefix is not a match.

Source: `queue/bind/routing-key [direct-exchange-key-matching]`."""

from amqp_conformance.fixtures.vocabulary import MUST, SPEC, Binding, Message, expect_routes, route, rule

RULE = rule("RT-02", "A direct exchange routes by exact key equality",
            strength=MUST, guide=SPEC, section="queue.bind.routing-key",
            source="queue/bind/routing-key [direct-exchange-key-matching]")

BINDINGS = {"Key": Binding("Key"), "Key again": Binding("Key"), "key": Binding("key"), "empty": Binding("")}
# message label -> its routing key
MESSAGES = {"to Key": Message("Key"), "to key": Message("key"), "to KEY": Message("KEY"),
            "to the empty key": Message(""), "to Ke": Message("Ke"), "to Key.": Message("Key.")}
EXPECTED = {"Key": {"to Key"}, "Key again": {"to Key"}, "key": {"to key"}, "empty": {"to the empty key"}}


async def test_direct_exchange_routes_by_exact_key(broker):
    seen = await route(broker, "direct", BINDINGS, MESSAGES)
    expect_routes(seen, EXPECTED, "a direct exchange routes to the queues whose binding key equals the routing key")
