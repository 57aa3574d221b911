"""EX-08: an exchange name is made of letters, digits, "-", "_", "." and ":", at most 127
octets: a declare of a name with another character, or of 128 octets, is refused with
channel.close 406.

Source: exchange.declare, field exchange, rule [syntax]; the exchange-name domain's
asserts. RabbitMQ documents no lexicon check and names up to 255 octets (D8): a
declare-ok is non-strict with D8 (the exchange it made is deleted again); any other
close than channel.close 406 fails."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, answer_or_close, check, is_refusal, non_strict, observe, rule,
                                                  answer_shown, spec, unchecked_method)

RULE = rule("EX-08", "An exchange name outside the lexicon or over 127 octets is refused with 406",
            strength=MUST, guide=SPEC, section="exchange.declare",
            source="exchange/declare/exchange [syntax]",
            accepts="declare-ok is non-strict (RabbitMQ documents no lexicon check and 255-octet names, D8)")

# The part that breaks the syntax, appended to a name of the test's own.
BAD_NAMES = {"character": lambda name: f"{name}@bad", "length": lambda name: (name + "x" * 128)[:128]}


@pytest.mark.parametrize("defect", BAD_NAMES)
async def test_name_outside_the_syntax_is_refused(broker, defect):
    connection = await broker.connection()
    name = BAD_NAMES[defect](broker.name("x"))
    answer = await answer_or_close(await connection.channel(),
                             unchecked_method(spec.Exchange.Declare, exchange=name, exchange_type="direct"),
                             spec.Exchange.DeclareOk)
    observe("answer", answer_shown(answer))
    if not is_refusal(answer):
        # Deleted again without waiting: the rule judged the declare (and garagemq never answers a delete).
        (await connection.channel()).send(unchecked_method(spec.Exchange.Delete, exchange=name, nowait=True))
        non_strict(f"a name with a bad {defect} was declared (RabbitMQ documents no lexicon check, D8)",
                   expected="channel.close 406", actual="exchange.declare-ok")
        return
    check((answer.scope, answer.code) == ("channel", 406), f"a name with a bad {defect} is refused with 406",
          expected="channel.close 406", actual=answer)
