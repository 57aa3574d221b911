"""QU-06: declaring an existing queue again with auto-delete flipped never changes how
the queue is deleted: an explicit-delete queue stays after its last consumer leaves,
an auto-delete one goes.

Source: queue/declare/auto-delete [pre-existence]. The specification contradicts itself
here: [pre-existence] says the field is ignored for an existing queue, [equivalent]
(QU-05) that a differing field is a channel exception. Both answers to the flipped
redeclare pass (the one seen is recorded); the queue's behaviour must stay its first
declare's either way."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, answer_of, expect_exists, expect_gone,
                                                  get_all, message, observe, own_queue, publish_all, rule, shown,
                                                  spec)

RULE = rule("QU-06", "A redeclare with auto-delete flipped does not change how the queue is deleted",
            strength=MUST, guide=SPEC, section="queue.declare.auto-delete",
            source="queue/declare/auto-delete [pre-existence]",
            accepts=("declare-ok or a channel exception to the flipped redeclare (the specification allows both: "
                     "[pre-existence] and [equivalent]); the queue deleted as its first declare said"))


@pytest.mark.parametrize("first_auto_delete", [False, True], ids=["explicit-delete", "auto-delete"])
async def test_a_flipped_auto_delete_changes_nothing(broker, first_auto_delete):
    connection = await broker.connection()
    channel = await connection.channel()
    queue = await own_queue(broker, channel, auto_delete=first_auto_delete)
    flipped = await answer_of(channel, spec.Queue.Declare(queue=queue, durable=True, auto_delete=not first_auto_delete,
                                                          arguments=broker.queue_arguments("classic")),
                              spec.Queue.DeclareOk, requirement="the redeclare with auto-delete flipped is answered")
    observe("flipped redeclare", shown(flipped))
    consuming = await connection.channel()
    await consuming.cancel(await consuming.consume(queue))  # its first and last consumer, gone (cancel-ok)
    if first_auto_delete:
        await expect_gone(connection, queue, "the auto-delete queue goes once its last consumer is cancelled, "
                                             "whatever the flipped redeclare said")
    else:
        # Still there and serving: a message put in comes back out, through the queue itself.
        checking = await connection.channel()
        await expect_exists(connection, queue, "the explicit-delete queue stays after its last consumer is cancelled, "
                                               "whatever the flipped redeclare said")
        await publish_all(checking, queue, [message(b"still here")])
        await get_all(checking, queue, 1)
