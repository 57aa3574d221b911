"""QU-21: a broker implements at least two message priority levels, 0-4 and 5-9: a
priority-9 message published after priority-0 ones to a queue nobody consumes from
comes out first. How many levels it has among 0-9 is recorded (INFO, basic [07]).

Source: basic [06], basic [07]. Priorities are an optional feature for this catalogue:
the levels are probed first (ten messages, priorities 0 to 9 in rising order) on a plain
queue, then on one declared with `x-max-priority` 9 (RabbitMQ's way); a broker that
orders neither, or refuses that argument, is unsupported, with what came out (or the
refusal) as the probe. RabbitMQ documents
priorities only for queues declared with `x-max-priority` (D17): a plain queue that is
first in first out is non-strict, naming D17. Where a queue shows levels, the rule's
scenario must hold there."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, Reply, answer_of, check, get_all, message, non_strict,
                                                  observe, own_queue, priority_levels, publish_all, rule, shown, spec,
                                                  unsupported)

RULE = rule("QU-21", "A priority-9 message overtakes earlier priority-0 ones; the levels are recorded",
            strength=MUST, guide=SPEC, section="class.basic", source="basic [06]; basic [07]",
            accepts=("priorities only on a queue declared with x-max-priority (non-strict: RabbitMQ, D17); a broker "
                     "with no priorities at all is unsupported"))

LOW_FIRST = 3


async def levels_of(channel, queue: str) -> list[int]:
    """The priorities of ten messages, published 0 to 9, in the order the queue hands them out."""
    await publish_all(channel, queue, [message(b"%d" % p, priority=p) for p in range(10)])
    return [int(d.body) for d in await get_all(channel, queue, 10)]


async def test_a_higher_priority_overtakes(broker):
    channel = await (await broker.connection()).channel()
    plain = await own_queue(broker, channel)
    seen = {"plain queue": await levels_of(channel, plain)}
    queue = plain
    if priority_levels(seen["plain queue"]) < 2:
        queue = broker.adopt(broker.name("priority"))
        declared = await answer_of(channel, spec.Queue.Declare(
            queue=queue, durable=True, arguments=broker.queue_arguments("classic", {"x-max-priority": 9})),
            spec.Queue.DeclareOk, requirement="a queue with x-max-priority is declared")
        if isinstance(declared, Reply):
            unsupported("the broker orders no message by priority on a plain queue and refuses x-max-priority",
                        f"priorities 0..9 came out of a plain queue as {seen['plain queue']}; "
                        f"a queue with x-max-priority 9: {shown(declared)}")
        seen["x-max-priority 9"] = await levels_of(channel, queue)
    observe("priorities out, published 0..9", seen)
    levels = {where: priority_levels(order) for where, order in seen.items()}
    observe("priority levels", levels)
    if max(levels.values()) < 2:
        unsupported("the broker orders no message by priority", f"priorities 0..9 came out as {seen}")
    if queue != plain:
        non_strict("a plain queue hands out messages first in first out whatever their priority; priorities hold "
                   "only with x-max-priority (RabbitMQ documents this, D17)",
                   expected="priority order on a plain queue", actual=seen["plain queue"])

    await publish_all(channel, queue, [message(b"low %d" % n, priority=0) for n in range(LOW_FIRST)]
                      + [message(b"high", priority=9)])
    first = (await get_all(channel, queue, 1))[0]
    check(first.body == b"high", "the priority-9 message published after priority-0 ones comes out first",
          expected=b"high", actual=first.body)
    await channel.call(spec.Queue.Purge(queue=queue), spec.Queue.PurgeOk)
