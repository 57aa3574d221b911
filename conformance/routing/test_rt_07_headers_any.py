"""RT-07: a headers binding with x-match `any` routes a message when one binding argument
not starting with `x-` matches a header (equal value, or present for a void argument);
`x-` arguments never take part, and the routing key is ignored.

Source: PDF 3.1.3.4 (the headers exchange type). x-match values other than `all` and
`any` are left undefined by the spec: what the broker answers to one is recorded
(RabbitMQ refuses it with channel.close 406). A broker without headers exchanges makes the
rule unsupported (EX-02)."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, Binding, Message, expect_routes,
                                                  observe_binding_answer, require_exchange_type, route, rule)

RULE = rule("RT-07", "Headers x-match any: one matching non-x- argument routes",
            strength=MUST, guide=SPEC, section="exchange.declare.type", source="PDF 3.1.3.4",
            accepts=("any answer to an x-match value other than all or any, recorded; unsupported where the "
                     "broker refuses to declare a headers exchange"))

BINDINGS = {
    "any of colour, size": Binding("the key", {"x-match": "any", "colour": "red", "size": "big"}),
    "any of x-tag, flavour": Binding(arguments={"x-match": "any", "x-tag": "t1", "flavour": "sour"}),
    "any of shape present": Binding(arguments={"x-match": "any", "shape": None}),  # void: presence only
}
MESSAGES = {
    "red": Message("another key", {"colour": "red"}),
    "blue big": Message("", {"colour": "blue", "size": "big"}),
    "blue small": Message("the key", {"colour": "blue", "size": "small"}),
    "x-tag t1": Message("", {"x-tag": "t1"}),
    "sour": Message("", {"flavour": "sour", "x-tag": "other"}),
    "round": Message("", {"shape": "round"}),
    "no headers": Message("the key"),
}
EXPECTED = {
    "any of colour, size": {"red", "blue big"},
    "any of x-tag, flavour": {"sour"},
    "any of shape present": {"round"},
}


async def test_headers_any_needs_one_argument(broker):
    await require_exchange_type(broker, "headers")
    seen = await route(broker, "headers", BINDINGS, MESSAGES)
    expect_routes(seen, EXPECTED, "x-match any routes messages with one header matching a non-x- argument")
    await observe_binding_answer(broker, "headers", {"x-match": "some", "colour": "red"},
                                 "a binding with x-match 'some'")
