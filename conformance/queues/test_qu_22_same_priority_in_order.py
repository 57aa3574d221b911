"""QU-22: messages of one priority come out in the order they were published, whatever
mix of persistent and transient they are.

Source: basic [08]. Judged on a plain queue and on one declared with `x-max-priority`
(RabbitMQ's priority queue, D17, where persistence and priority both decide where a
message is stored); a broker that refuses that argument leaves the second case
unsupported with its answer."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, Reply, answer_of, check, get_all, message, own_queue,
                                                  publish_all, rule, shown, spec, unsupported)

RULE = rule("QU-22", "Messages of one priority keep their publish order whatever their persistence",
            strength=MUST, guide=SPEC, section="class.basic", source="basic [08]")

MESSAGES = 12
QUEUES = {"plain": {}, "x-max-priority": {"x-max-priority": 9}}


@pytest.mark.parametrize("kind", QUEUES)
async def test_one_priority_keeps_publish_order_across_persistence(broker, kind):
    channel = await (await broker.connection()).channel()
    if QUEUES[kind]:
        queue = broker.adopt(broker.name("priority"))
        arguments = broker.queue_arguments("classic", QUEUES[kind])
        declared = await answer_of(channel, spec.Queue.Declare(queue=queue, durable=True, arguments=arguments),
                                   spec.Queue.DeclareOk, requirement="a queue with x-max-priority is declared")
        if isinstance(declared, Reply):
            unsupported("the broker refuses x-max-priority", shown(declared))
    else:
        queue = await own_queue(broker, channel)
    # Persistence in an uneven pattern (two persistent, one transient, ...), one priority.
    sent = [message(b"%02d" % n, priority=5, persistent=n % 3 != 2) for n in range(MESSAGES)]
    await publish_all(channel, queue, sent)
    out = [d.body for d in await get_all(channel, queue, MESSAGES)]
    check(out == [body for body, _ in sent], "messages of one priority come out in publish order",
          expected=[body for body, _ in sent], actual=out)
