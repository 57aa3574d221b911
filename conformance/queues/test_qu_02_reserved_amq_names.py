"""QU-02: names starting with `amq.` are reserved: a non-passive declare of a missing
`amq.` queue is refused with channel.close 403 ACCESS_REFUSED; an `amq.` queue that
exists (a generated one, on a broker that generates such names) may still be declared
passively, or again with its own properties.

Source: queue/declare/queue [reserved] (on-failure access-refused). RabbitMQ documents
refusing every non-passive declare of an `amq.` name with 403, existing or not (D9): a
refused redeclare of an existing one is non-strict, naming D9; the passive declare stays
MUST. Where the broker's generated names do not start with `amq.`, the second half has
nothing to declare again and says so (not exercised)."""

import pytest

from amqp_conformance.fixtures.vocabulary import (ACCESS_REFUSED, MUST, SPEC, Reply, answer_of, expect_closed,
                                                  expect_reply, non_strict, not_exercised, observe, rule,
                                                  server_named_queue, shown, spec)

RULE = rule("QU-02", "A queue name starting with amq. is refused (403) unless the queue exists",
            strength=MUST, guide=SPEC, section="queue.declare.queue", source="queue/declare/queue [reserved]",
            accepts=("an existing amq. queue declared again non-passively: declare-ok, or a refusal (non-strict: "
                     "RabbitMQ documents refusing every amq. name with 403, D9); its passive declare must succeed"))


@pytest.mark.case("new")
async def test_a_new_amq_queue_is_refused(broker):
    channel = await (await broker.connection()).channel()
    reserved = broker.adopt("amq." + broker.name("reserved"))  # deleted afterwards, should a broker create it
    channel.send(spec.Queue.Declare(queue=reserved, durable=True))
    await expect_closed(channel, code=ACCESS_REFUSED, text="ACCESS_REFUSED",
                        requirement="declaring a missing queue named amq.* is refused with channel.close 403")


@pytest.mark.case("existing")
async def test_an_existing_amq_queue_can_be_declared_again(broker):
    connection = await broker.connection()
    channel = await connection.channel()
    generated = await server_named_queue(channel, "a server-named queue is declared (to declare it again)")
    if not generated.startswith("amq."):
        not_exercised(f"the broker's generated name {generated!r} does not start with amq.")
        return
    await expect_reply(channel, spec.Queue.Declare(queue=generated, passive=True), spec.Queue.DeclareOk,
                       "an existing amq.* queue declared passively is answered declare-ok")
    again = await answer_of(channel, spec.Queue.Declare(queue=generated, exclusive=True), spec.Queue.DeclareOk,
                            requirement="an existing amq.* queue declared again with its own properties is answered")
    observe("non-passive redeclare", shown(again))
    if isinstance(again, Reply):
        non_strict("an existing amq.* queue declared again with its own properties was refused: RabbitMQ documents "
                   "refusing every amq. queue name with 403 (D9)", expected="declare-ok", actual=shown(again))
