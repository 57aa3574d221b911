"""RT-05: in a topic binding `#` stands for zero or more words: `#` alone takes every key,
the empty one too; `a.#` and `#.a` take `a`; `a.#.b` takes `a.b` and `a.x.y.b` but not
`a.x` nor `b`.

Source: PDF 3.1.3.3 (the topic exchange type). What a key with an empty word (`a..b`)
matches the spec does not say: where it went is recorded, never judged. A broker without
topic exchanges makes the rule unsupported (EX-02)."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, Binding, Message, expect_routes, observe,
                                                  require_exchange_type, route, rule)

RULE = rule("RT-05", "In a topic binding `#` matches zero or more words",
            strength=MUST, guide=SPEC, section="exchange.declare.type", source="PDF 3.1.3.3",
            accepts=("any routing of a key with an empty word (`a..b`), recorded; unsupported where the broker "
                     "refuses to declare a topic exchange"))

KEYS = ["", "a", "a.b", "a.x.y.b", "x.a", "a.x", "b"]
EMPTY_WORD = "a..b"
PATTERNS = ["#", "a.#", "#.a", "a.#.b"]
EXPECTED = {"#": set(KEYS), "a.#": {"a", "a.b", "a.x.y.b", "a.x"}, "#.a": {"a", "x.a"}, "a.#.b": {"a.b", "a.x.y.b"}}


async def test_hash_matches_zero_or_more_words(broker):
    await require_exchange_type(broker, "topic")
    seen = await route(broker, "topic", {pattern: Binding(pattern) for pattern in PATTERNS},
                       {key: Message(key) for key in [*KEYS, EMPTY_WORD]})
    observe(f"bindings that took {EMPTY_WORD!r}", sorted(label for label, got in seen.items() if EMPTY_WORD in got))
    expect_routes(seen, EXPECTED, "`#` matches zero or more whole words", ignoring={EMPTY_WORD})
