"""BND-10: an empty queue name in queue.bind and queue.unbind stands for the last queue
declared on the channel, and in bind an empty routing key then stands for that queue's
name: the bind routes a publish keyed with the queue's name, and an unbind with the empty
queue name and that key removes the binding. The unbind names the key: the spec gives the
empty-key reading to bind's routing-key only, so an unbind with an empty key may mean
the empty key itself (Broker-J: 404 'No such binding'; RabbitMQ: the queue's name).
On a channel that declared no queue, the empty name is refused with channel.close 404.

Source: queue.bind, field queue, rule [queue-known]; queue.unbind, field queue, rule
[queue-known]; the routing-key field's text. The queue-name domain also calls it a
connection exception 502, and RabbitMQ documents 502 that way (D23): connection.close 502
passes too."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, bind_queue, check, expect_reply, is_refusal,
                                                  new_exchange, observe, RoutingProbe, rule, answer_shown, spec, unbind_queue)

RULE = rule("BND-10", "An empty queue name in bind and unbind means the channel's last declared queue",
            strength=MUST, guide=SPEC, section="queue.bind",
            source="queue/bind/queue [queue-known]; queue/unbind/queue [queue-known]",
            accepts="with no queue declared: channel.close 404 or connection.close 502 (D23)")


@pytest.mark.case("declared")
async def test_empty_names_stand_for_the_last_declared_queue(broker):
    connection = await broker.connection()
    probe, channel = await RoutingProbe.open(broker, connection), await connection.channel()
    exchange, queue = await new_exchange(broker, channel, "direct"), broker.adopt(broker.name("q"))
    await expect_reply(channel, spec.Queue.Declare(queue=queue, durable=True,
                                                   arguments=broker.queue_arguments("classic")),
                       spec.Queue.DeclareOk, "the queue is declared on the channel (the rule's setup)")
    bound = await bind_queue(channel, "", exchange, "")
    check(not is_refusal(bound), "a bind with empty queue name and key is accepted", expected="queue.bind-ok",
          actual=bound)
    copies = await probe.copies(queue, exchange, queue)
    check(copies == 1, "the binding is the last declared queue's, keyed by its name",
          expected="1 copy of a publish keyed with the queue's name", actual=f"{copies}")
    unbound = await unbind_queue(channel, "", exchange, queue)
    check(not is_refusal(unbound), "an unbind with an empty queue name is accepted", expected="queue.unbind-ok",
          actual=unbound)
    copies = await probe.copies(queue, exchange, queue)
    check(copies == 0, "the unbind removed that binding", expected="0 copies", actual=f"{copies}")


@pytest.mark.case("none-declared")
async def test_empty_queue_name_without_a_declared_queue_is_refused(broker):
    channel = await (await broker.connection()).channel()
    answer = await bind_queue(channel, "", await new_exchange(broker, channel, "direct"), "key")
    observe("answer", answer_shown(answer))
    check(is_refusal(answer) and (answer.scope, answer.code) in {("channel", 404), ("connection", 502)},
          "an empty queue name on a channel that declared no queue is refused",
          expected="channel.close 404 (or connection.close 502, D23)", actual=answer)
