"""CON-19: an exclusive consumer's exclusivity ends with it: once it is cancelled, or its
connection is lost (TCP reset, no AMQP close), a new consumer registers on the queue.

A durable classic queue (quorum queues ignore the flag, CON-05). While the exclusive
consumer lives, another consume must be refused, so the case cannot pass on a broker that
ignores exclusivity; the guide does not say how: any close passes, RabbitMQ's channel.close
403 is the SHOULD (Qpid closes the connection). A broker learns of a reset a
moment after it happens: the new consume is retried until a deadline."""

import pytest
from pamqp.commands import Basic

from amqp_conformance.fixtures.vocabulary import (CONSUMERS, MUST, Reply, check, consume_once_free, expect_reply,
                                                  non_strict, observe, rule, timeouts)

RULE = rule("CON-19", "Exclusivity ends with the exclusive consumer: after its cancel or connection loss "
            "a consumer registers", strength=MUST, guide=CONSUMERS, section="exclusivity",
            accepts=("any close of the channel or the connection for the consume refused while the exclusive "
                     "consumer lives; another code or scope than RabbitMQ's channel.close 403 is non-strict"))


@pytest.mark.parametrize("ending", ["cancel", "connection-lost"])
async def test_a_consumer_registers_once_the_exclusive_one_is_gone(broker, ending):
    queue = await broker.queue("classic")
    holder = await (await broker.connection()).channel()
    tag = await holder.consume(queue, exclusive=True)
    intruder = await (await broker.connection()).channel()
    intruder.send(Basic.Consume(queue=queue))
    refused = await intruder.watch(Basic.ConsumeOk, within=timeouts.REPLY)
    observe("consume while the exclusive consumer lives", str(refused))
    check(isinstance(refused, Reply), "while the exclusive consumer lives, another consume is refused",
          expected="a close of the channel or the connection", actual=str(refused))
    if (refused.scope, refused.code) != ("channel", 403):
        non_strict(f"refused with {refused.scope}.close {refused.code}, not RabbitMQ's channel.close 403: the guide "
                   "does not say how it is refused")

    if ending == "cancel":
        await expect_reply(holder, Basic.Cancel(consumer_tag=tag), Basic.CancelOk,
                           "the exclusive consumer is cancelled")
    else:
        holder.connection.abort()
    accepted, refusals = await consume_once_free(broker, queue, within=timeouts.REPLY)
    observe("refusals before the consume was accepted", refusals)
    check(accepted is not None, f"after the exclusive consumer's {ending} a new consumer registers",
          expected="consume-ok", actual=f"every consume refused within {timeouts.REPLY:.1f} s: {refusals[-3:]}")
