"""QU-05: a non-passive queue.declare of an existing queue is answered declare-ok when
durable, exclusive, auto-delete and arguments equal the queue's own, and refused with
a channel exception when any of them differs.

Source: queue/declare/passive [equivalent]. The specification names no code: the scope
(channel) is judged, the code recorded (RabbitMQ: 406 PRECONDITION_FAILED, D5; 405
first where exclusivity differs, D6). A broker that refuses the argument the redeclare
adds (a fresh queue declared with it is refused too) never compares it: that case is
unsupported, with the fresh declare's answer."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, Reply, answer_of, expect_channel_exception, expect_reply,
                                                  own_queue, rule, shown, spec, unsupported)

RULE = rule("QU-05", "Redeclaring a queue with equal properties succeeds; with other ones it is a channel exception",
            strength=MUST, guide=SPEC, section="queue.declare", source="queue/declare/passive [equivalent]",
            accepts="any channel.close code for a difference (recorded; RabbitMQ 406, or 405 for exclusivity: D5, D6)")

# What a redeclare changes of the queue's own properties (durable, shared, not
# auto-delete, its queue-type argument), as fields of queue.declare.
DIFFERENCES = {
    "durable": {"durable": False},
    "exclusive": {"exclusive": True},
    "auto-delete": {"auto_delete": True},
    "arguments": {"arguments": {"x-max-length": 10}},
}


def redeclare(queue: str, own_arguments: dict, **changes) -> spec.Queue.Declare:
    fields = {"durable": True, "exclusive": False, "auto_delete": False, "arguments": dict(own_arguments)}
    if "arguments" in changes:
        changes["arguments"] = {**own_arguments, **changes["arguments"]}
    return spec.Queue.Declare(queue=queue, **{**fields, **changes})


async def require_the_argument(broker, arguments: dict) -> None:
    """A broker that refuses the argument on a fresh queue cannot be asked to compare it."""
    queue = broker.adopt(broker.name("argument-probe"))
    answer = await answer_of(await (await broker.connection()).channel(),
                             spec.Queue.Declare(queue=queue, durable=True,
                                                arguments=broker.queue_arguments("classic", arguments)),
                             spec.Queue.DeclareOk, requirement=f"a fresh queue declared with {arguments} is answered")
    if isinstance(answer, Reply):
        unsupported(f"the broker refuses the queue argument {', '.join(arguments)}", shown(answer))


@pytest.mark.case("equal")
async def test_an_equal_redeclare_is_accepted(broker):
    channel = await (await broker.connection()).channel()
    queue = await own_queue(broker, channel)
    await expect_reply(channel, redeclare(queue, broker.queue_arguments("classic")), spec.Queue.DeclareOk,
                       "a redeclare with the queue's own durable, exclusive, auto-delete and arguments is accepted")


@pytest.mark.parametrize("difference", DIFFERENCES)
async def test_a_different_redeclare_is_a_channel_exception(broker, difference):
    if difference == "arguments":
        await require_the_argument(broker, DIFFERENCES[difference]["arguments"])
    connection = await broker.connection()
    queue = await own_queue(broker, await connection.channel())
    await expect_channel_exception(await connection.channel(),
                                   redeclare(queue, broker.queue_arguments("classic"), **DIFFERENCES[difference]),
                                   spec.Queue.DeclareOk,
                                   requirement=f"a redeclare with another {difference} is refused with a channel "
                                               "exception")
