"""CON-31 (INFO): single active consumer on a stream queue over AMQP 0-9-1. The CONSUMERS
guide says the x-single-active-consumer argument does not work on streams for AMQP 0-9-1
clients (a stream's single active consumer is a feature of the stream protocol). What a
broker answers is recorded: a refused declare, or a stream declared with the argument whose
two consumers (each from the stream's first offset) are both fed, or only one of them.
A broker without stream queues is unsupported, from its answer to a stream declare."""

from pamqp.commands import Queue

from amqp_conformance.fixtures.vocabulary import (CONSUMERS, INFO, SINGLE_ACTIVE, deliveries_across, observe,
                                                  observe_answer, rule, who_got)

RULE = rule("CON-31", "Single active consumer on a stream queue over AMQP 0-9-1: what the broker answers",
            strength=INFO, guide=CONSUMERS, section="single-active-consumer", requires=("stream",))

PREFETCH = 10  # a stream is consumed with manual acks and a prefetch
BODIES = [b"m1", b"m2"]
FROM_THE_START = {"x-stream-offset": "first"}


async def test_single_active_consumer_argument_on_a_stream(broker):
    name = broker.name("stream")
    async with broker.channel() as channel:
        declared = await observe_answer(
            "queue.declare of a stream with x-single-active-consumer=true",
            channel.call(Queue.Declare(queue=name, durable=True, arguments=broker.queue_arguments(
                "stream", SINGLE_ACTIVE)), Queue.DeclareOk), lambda _: "declare-ok")
    if not declared.answered:
        return
    queue = broker.adopt(name)
    connection = await broker.connection()
    channels = [await connection.channel() for _ in range(2)]
    for number, consumer in enumerate(channels, 1):
        await consumer.qos(prefetch_count=PREFETCH)
        await consumer.consume(queue, consumer_tag=f"consumer-{number}", arguments=FROM_THE_START)
    await broker.publish(queue, *BODIES)
    fed = who_got(await deliveries_across(channels, len(channels) * len(BODIES)))
    observe("deliveries per consumer", fed or "nothing")
    observe("consumers fed", f"{len(fed)} of {len(channels)}: " +
            ("not reduced to one (the argument has no effect)" if len(fed) > 1 else "one"))
