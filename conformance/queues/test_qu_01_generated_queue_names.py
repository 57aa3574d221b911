"""QU-01: a queue.declare with an empty name makes the broker create a queue under a
unique name it generates and reports in declare-ok; ten such declares give ten distinct
queues, each of which takes a message and gives it back.

Source: queue/declare/queue [default-name]. The specification leaves the format of the
name to the broker: any non-empty name passes (RabbitMQ's `amq.gen-...` is one choice).
The queues are exclusive, so they go with the test's connection."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, check, get_all, observe, publish_all, message, rule,
                                                  server_named_queue, spec)

RULE = rule("QU-01", "An empty queue name makes the broker generate a unique one",
            strength=MUST, guide=SPEC, section="queue.declare.queue", source="queue/declare/queue [default-name]",
            accepts="a generated name of any format; the queues exclusive to the declaring connection")

QUEUES = 10


async def test_ten_empty_names_give_ten_distinct_usable_queues(broker):
    channel = await (await broker.connection()).channel()
    names = [await server_named_queue(channel, "queue.declare with an empty name is answered with a generated name")
             for _ in range(QUEUES)]
    observe("generated names", names[:3])
    check(len(set(names)) == QUEUES, "every generated name is unique",
          expected=f"{QUEUES} distinct names", actual=f"{len(set(names))} distinct: {sorted(set(names))}")
    for name in names:
        await publish_all(channel, name, [message(name.encode())])
    bodies = [delivery.body for name in names for delivery in await get_all(channel, name, 1)]
    check(bodies == [name.encode() for name in names], "each generated queue is a queue of its own: it gives back "
          "the message routed to it by its name", expected=names, actual=[b.decode(errors="replace") for b in bodies])
    for name in names:
        await channel.call(spec.Queue.Delete(queue=name), spec.Queue.DeleteOk)
