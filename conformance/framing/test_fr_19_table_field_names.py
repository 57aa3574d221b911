"""FR-19: a field table whose field name does not start with a letter, `$` or `#`, or is
longer than 128 characters, should be refused with a connection exception 503 (the text
calls it a syntax error, which is 502's name: both pass).

Source: PDF 4.2.5.5. RabbitMQ documents that it does not check field names (D28): a
message with such headers is accepted, non-strict. The invariants after any input hold."""

import pytest

from amqp_conformance.fixtures.vocabulary import (SHOULD, SPEC, answer_to, expect_connection_exception, frames,
                                                  non_strict, raw_connection, rule, spec)

RULE = rule("FR-19", "A field name outside the lexicon or over 128 characters is refused (503 or 502)",
            strength=SHOULD, guide=SPEC, section="constants", source="PDF 4.2.5.5",
            accepts="502 or 503; accepted (RabbitMQ, D28) is non-strict")

NAMES = {"starts-with-a-digit": "1field", "starts-with-a-dash": "-field", "129-characters": "f" * 129}


@pytest.mark.parametrize("name", list(NAMES))
async def test_a_bad_field_name_is_refused(broker, bystander, name):
    raw = await raw_connection(broker)
    headers = spec.Basic.Properties(headers={NAMES[name]: 1})
    raw.send(*frames.publish_frames(1, broker.name("nowhere"), b"abc", properties=headers), frames.barrier_frame(1))
    ending = await answer_to(raw)
    if not ending.ended:
        non_strict(f"message headers with a field name {name.replace('-', ' ')} were accepted: RabbitMQ documents "
                   "no check of field names (D28)", expected="connection.close 503 or 502", actual=str(ending))
    else:
        expect_connection_exception(raw, ending, f"a field name {name.replace('-', ' ')} is refused",
                                    codes=(502, 503))
    await bystander.expect_unharmed(ending)
