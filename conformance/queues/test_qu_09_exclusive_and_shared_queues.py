"""QU-09: a broker supports both exclusive and shared queues: both can be declared on
one connection, and when that connection closes the exclusive queue goes while the
shared one stays.

Source: queue/declare/exclusive [types]; PDF 2.1.4.1 (an exclusive queue is deleted
when its connection closes). The specification lets the deletion follow the close a
little later: it is polled for, bounded. RabbitMQ makes a durable exclusive queue a
transient one (D24): what the broker answers to that declare is recorded only."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, declare, expect_exists, expect_gone, observe_answer,
                                                  own_queue, rule)

RULE = rule("QU-09", "Exclusive and shared queues can both be declared; the exclusive one goes with its connection",
            strength=MUST, guide=SPEC, section="queue.declare.exclusive",
            source="queue/declare/exclusive [types]; PDF 2.1.4.1",
            accepts="any answer to a durable exclusive declare (recorded; RabbitMQ makes it transient, D24)")


async def test_the_exclusive_queue_goes_with_its_connection_the_shared_one_stays(broker):
    owner = await broker.connection()
    channel = await owner.channel()
    exclusive = broker.adopt(broker.name("exclusive"))
    await declare(channel, exclusive, exclusive=True)
    shared = await own_queue(broker, channel)
    await observe_answer("durable exclusive declare", declare(await owner.channel(), broker.name("durable-exclusive"),
                                                              durable=True, exclusive=True))
    await owner.close()
    other = await broker.connection()
    await expect_gone(other, exclusive, "the exclusive queue is deleted once its connection closed")
    await expect_exists(other, shared, "the shared queue stays after the declaring connection closed")
