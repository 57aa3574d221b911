"""BND-08: an unbind that fails is refused; the method's own rule calls it a connection
exception.

Source: queue.unbind, rule [01]. It contradicts the soft 404 that the fields' rules give
(BND-07): the check asks only that the failed unbind (from an exchange that does not
exist) be refused, by any close, and records its scope. RabbitMQ documents unbind as
idempotent (D3): unbind-ok is non-strict. Silence fails."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, is_refusal, non_strict, observe, rule, answer_shown,
                                                  unbind_queue)

RULE = rule("BND-08", "A failed unbind is refused (the spec: a connection exception)",
            strength=MUST, guide=SPEC, section="queue.unbind", source="queue/unbind [01]",
            accepts="any close, its scope recorded; unbind-ok is non-strict (RabbitMQ documents an idempotent "
                    "unbind, D3)")


async def test_failed_unbind_is_refused(broker):
    channel = await (await broker.connection()).channel()
    answer = await unbind_queue(channel, await broker.queue(), broker.name("missing"), "key")
    observe("answer", answer_shown(answer))
    if not is_refusal(answer):
        non_strict("an unbind from a missing exchange was answered with unbind-ok (RabbitMQ documents it, D3)",
                   expected="a close (the spec: connection.close)", actual=answer)
    else:
        observe("scope of the refusal", answer.scope)
