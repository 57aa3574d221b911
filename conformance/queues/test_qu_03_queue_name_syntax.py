"""QU-03: a queue name holds only letters, digits, `-`, `_`, `.` and `:`, at most 127
octets; a declare of any other name is refused with channel.close 406
PRECONDITION_FAILED.

Source: queue/declare/queue [syntax] (on-failure precondition-failed) and the queue-name
domain (127 octets). RabbitMQ documents no lexicon check and names up to 255 octets
(D8): a declare-ok is non-strict, naming D8, when the queue it reports is the one asked
for. A refusal must still be the channel exception 406 the rule names."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, PRECONDITION_FAILED, SPEC, Reply, answer_of, check,
                                                  non_strict, observe, rule, shown, spec, unchecked)

RULE = rule("QU-03", "A queue name outside the lexicon or over 127 octets is refused (406)",
            strength=MUST, guide=SPEC, section="queue.declare.queue", source="queue/declare/queue [syntax]",
            accepts=("channel.close 406; declare-ok of the very name asked for is non-strict (RabbitMQ documents "
                     "no lexicon check and 255-octet names, D8)"))

# A name the lexicon refuses, and one a single octet too long (both start with the test's own prefix).
ODD_NAMES = {"outside-the-lexicon": lambda prefix: prefix + " #*!",
             "128-octets": lambda prefix: (prefix + "-" + "x" * 128)[:128]}


@pytest.mark.parametrize("odd", ODD_NAMES)
async def test_an_odd_queue_name_is_refused(broker, odd):
    name = ODD_NAMES[odd](broker.name("syntax"))
    channel = await (await broker.connection()).channel()
    requirement = f"a queue name {'outside the lexicon' if odd.startswith('outside') else 'over 127 octets'} is refused"
    answer = await answer_of(channel, unchecked(spec.Queue.Declare(exclusive=True), queue=name), spec.Queue.DeclareOk,
                             requirement=requirement)
    observe("answer", shown(answer))
    if isinstance(answer, Reply):
        check((answer.scope, answer.code) == ("channel", PRECONDITION_FAILED), requirement + " with channel.close 406",
              expected="channel.close 406", actual=shown(answer))
        return
    check(answer.queue == name, "a broker that accepts the name creates the queue under that very name",
          expected=repr(name), actual=repr(answer.queue))
    non_strict(f"declare-ok for the queue name {name!r}: RabbitMQ documents no lexicon check and names up to "
               "255 octets (D8)", expected="channel.close 406", actual=shown(answer))
