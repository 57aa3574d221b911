"""RT-04: in a topic binding `*` stands for exactly one word: `*.stock.#` takes
`usd.stock` and `eur.stock.db` but not `stock.nasdaq`; `a.*` takes `a.b` and `a.bc` but
neither `a` nor `a.b.c`; and words match whole, so `a.b` does not take `a.bc`.

Source: PDF 3.1.3.3 (the topic exchange type). Topic is a type the spec only recommends
(EX-02): a broker that refuses to declare one makes this rule unsupported, with its
refusal as evidence."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, Binding, Message, expect_routes,
                                                  require_exchange_type, route, rule)

RULE = rule("RT-04", "In a topic binding `*` matches exactly one word",
            strength=MUST, guide=SPEC, section="exchange.declare.type", source="PDF 3.1.3.3",
            accepts="unsupported where the broker refuses to declare a topic exchange")

KEYS = ["usd.stock", "eur.stock.db", "stock.nasdaq", "a.b", "a.bc", "a", "a.b.c"]
PATTERNS = ["*.stock.#", "a.*", "a.b"]
EXPECTED = {"*.stock.#": {"usd.stock", "eur.stock.db"}, "a.*": {"a.b", "a.bc"}, "a.b": {"a.b"}}


async def test_star_matches_exactly_one_word(broker):
    await require_exchange_type(broker, "topic")
    seen = await route(broker, "topic", {pattern: Binding(pattern) for pattern in PATTERNS},
                       {key: Message(key) for key in KEYS})
    expect_routes(seen, EXPECTED, "`*` matches exactly one whole word")
