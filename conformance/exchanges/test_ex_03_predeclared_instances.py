"""EX-03: every virtual host holds the pre-declared exchanges: `amq.direct` and
`amq.fanout`, `amq.topic` where the broker has topic exchanges, and a headers instance
where it has headers exchanges. A passive declare of each succeeds, and a routing probe
shows it routes as its type does.

Source: the spec's exchange class, rule [required-instances]; PDF 3.1.3.1-3.1.3.4. The
XML names the headers instance `amq.headers`, the PDF `amq.match`: either passes, and
which the broker holds is recorded (Qpid Broker-J holds only amq.match). A broker without
the topic or headers type is unsupported for that instance (EX-02 judges the type)."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, PREDECLARED, RECOMMENDED_TYPES, SPEC, check, exchange_exists,
                                                  expect_bound, is_refusal, observe, require_exchange_type,
                                                  RoutingProbe, rule, answer_shown)

RULE = rule("EX-03", "Every vhost holds amq.direct, amq.fanout, amq.topic and a headers instance",
            strength=MUST, guide=SPEC, section="exchange.declare",
            source="exchange [required-instances]; PDF 3.1.3.1; PDF 3.1.3.2; PDF 3.1.3.3; PDF 3.1.3.4",
            accepts="amq.headers or amq.match for headers (which one is recorded); a broker without the topic "
                    "or headers type is unsupported for that instance")

# What each type's instance must do with a binding made with `token` (a name of the test's,
# so that no other test's publishes match it): (key, arguments) bound, (key, headers) of a
# publish that must be routed, of one that must not be (a fanout routes it all the same).
def probes(token: str) -> dict:
    return {
        "direct": ((token, None), (token, None), ("other", None), False),
        "fanout": ((token, None), (token, None), ("other", None), True),
        "topic": ((f"{token}.*", None), (f"{token}.b", None), (f"b.{token}", None), False),
        "headers": (("", {"x-match": "all", "amqpc": token}), ("", {"amqpc": token}), ("", {"amqpc": "other"}), False),
    }


@pytest.mark.parametrize("exchange_type", PREDECLARED)
async def test_predeclared_instance_exists_and_routes_as_its_type(broker, exchange_type):
    if exchange_type in RECOMMENDED_TYPES:
        await require_exchange_type(broker, exchange_type)
    connection = await broker.connection()
    held = []
    for name in PREDECLARED[exchange_type]:
        answer = await exchange_exists(await connection.channel(), name, exchange_type)
        observe(f"passive declare of {name}", answer_shown(answer))
        if not is_refusal(answer):
            held.append(name)
    check(bool(held), f"the vhost holds the pre-declared {exchange_type} exchange",
          expected=f"declare-ok for {' or '.join(PREDECLARED[exchange_type])}", actual="refused (see the trace)")
    probe, queue = await RoutingProbe.open(broker, connection), await broker.queue()
    (key, arguments), routed_by, other_by, other_routes = probes(broker.name("key"))[exchange_type]
    await expect_bound(probe.channel, queue, held[0], key, arguments)
    routed = await probe.copies(queue, held[0], *routed_by)
    other = await probe.copies(queue, held[0], *other_by)
    check(routed == 1 and bool(other) == other_routes, f"{held[0]} routes as a {exchange_type} exchange",
          expected=f"1 copy of the matching publish, {int(other_routes)} of the other", actual=f"{routed} and {other}")
