"""QU-14: queue.purge and queue.delete with an empty queue name act on the queue last
declared on the channel; on a channel that declared none they are refused with
channel.close 404 NOT_FOUND.

Source: queue/purge/queue [queue-known], queue/delete/queue [queue-known] (on-failure
not-found). The queue-name domain's own text calls the second case a connection
exception 502 (ERRATA 18, D23): connection.close 502 passes too."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, NOT_FOUND, SPEC, SYNTAX_ERROR, answer_of, check, exists,
                                                  expect_reply, message, own_queue, publish_all, rule, shown, spec)

RULE = rule("QU-14", "An empty queue name in purge and delete means the channel's last declared queue",
            strength=MUST, guide=SPEC, section="queue.purge.queue",
            source="queue/purge/queue [queue-known]; queue/delete/queue [queue-known]",
            accepts="with no queue declared on the channel: channel.close 404, or connection.close 502 (D23)")

METHODS = {"purge": (spec.Queue.Purge(queue=""), spec.Queue.PurgeOk),
           "delete": (spec.Queue.Delete(queue=""), spec.Queue.DeleteOk)}


@pytest.mark.case("last-declared")
@pytest.mark.parametrize("method", METHODS)
async def test_an_empty_name_means_the_last_declared_queue(broker, method):
    connection = await broker.connection()
    channel = await connection.channel()
    queue = await own_queue(broker, channel)
    await publish_all(channel, queue, [message(b"a"), message(b"b")])
    request, reply = METHODS[method]
    answered = await expect_reply(channel, request, reply, f"{method} with an empty name is answered")
    check(answered.message_count == 2, f"{method}-ok reports the two messages of the channel's last declared queue",
          expected=2, actual=answered.message_count)
    left = await exists(connection, queue)
    if method == "purge":
        check(left is not None and left.message_count == 0, "the last declared queue was purged",
              expected="the queue there, 0 ready", actual=shown(left) if left else "the queue is gone")
    else:
        check(left is None, "the last declared queue was deleted", expected="passive declare refused with 404",
              actual=shown(left) if left else "")


@pytest.mark.case("none-declared")
@pytest.mark.parametrize("method", METHODS)
async def test_an_empty_name_with_no_queue_declared_is_refused(broker, method):
    channel = await (await broker.connection()).channel()
    request, reply = METHODS[method]
    answer = await answer_of(channel, request, reply, requirement=f"{method} with an empty name is answered")
    allowed = {("channel", NOT_FOUND), ("connection", SYNTAX_ERROR)}
    check((getattr(answer, "scope", None), getattr(answer, "code", None)) in allowed,
          f"{method} with an empty name on a channel that declared no queue is refused",
          expected="channel.close 404 (or connection.close 502)", actual=shown(answer))
