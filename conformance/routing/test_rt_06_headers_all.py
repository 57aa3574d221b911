"""RT-06: a headers binding with x-match `all` (and one without x-match, which means
`all`) routes a message only when every binding argument not starting with `x-` is among
the message's headers with an equal value, or merely present where the argument's value is
void; extra headers do not matter, and `x-` arguments never take part.

Source: PDF 3.1.3.4 (the headers exchange type). Headers is a type the spec only
recommends (EX-02): a broker that refuses to declare one makes the rule unsupported."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, Binding, Message, expect_routes,
                                                  require_exchange_type, route, rule)

RULE = rule("RT-06", "Headers x-match all: every non-x- argument must match a header",
            strength=MUST, guide=SPEC, section="exchange.declare.type", source="PDF 3.1.3.4",
            accepts="unsupported where the broker refuses to declare a headers exchange")

BINDINGS = {
    "all of colour, size": Binding(arguments={"x-match": "all", "colour": "red", "size": "big"}),
    "colour (no x-match)": Binding(arguments={"colour": "red"}),
    "all of colour, x-extra": Binding(arguments={"x-match": "all", "colour": "red", "x-extra": "never sent"}),
    "all of shape present": Binding(arguments={"x-match": "all", "shape": None}),  # void: presence only
}
MESSAGES = {
    "red big": Message("ignored", {"colour": "red", "size": "big"}),
    "red big round": Message("", {"colour": "red", "size": "big", "shape": "round"}),
    "red": Message("", {"colour": "red"}),
    "blue big": Message("", {"colour": "blue", "size": "big"}),
    "square": Message("", {"shape": "square"}),
    "no headers": Message(""),
}
EXPECTED = {
    "all of colour, size": {"red big", "red big round"},
    "colour (no x-match)": {"red big", "red big round", "red"},
    "all of colour, x-extra": {"red big", "red big round", "red"},
    "all of shape present": {"red big round", "square"},
}


async def test_headers_all_needs_every_argument(broker):
    await require_exchange_type(broker, "headers")
    seen = await route(broker, "headers", BINDINGS, MESSAGES)
    expect_routes(seen, EXPECTED, "x-match all routes only messages whose headers match every non-x- argument")
