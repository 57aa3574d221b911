"""QU-15: purging or deleting a queue that does not exist is refused with channel.close
404 NOT_FOUND.

Source: queue/purge/queue [must-exist], queue/delete/queue [must-exist] (on-failure
not-found). RabbitMQ documents an idempotent delete (D2): delete-ok for a missing queue
is non-strict, naming D2; purge has no such deviation."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, NOT_FOUND, SPEC, Reply, answer_of, check, non_strict,
                                                  observe, rule, shown, spec)

RULE = rule("QU-15", "Purging or deleting a missing queue is refused (404)",
            strength=MUST, guide=SPEC, section="queue.delete.queue",
            source="queue/purge/queue [must-exist]; queue/delete/queue [must-exist]",
            accepts="delete-ok for a missing queue is non-strict (RabbitMQ documents an idempotent delete, D2)")

METHODS = {"purge": (spec.Queue.Purge, spec.Queue.PurgeOk), "delete": (spec.Queue.Delete, spec.Queue.DeleteOk)}


@pytest.mark.parametrize("method", METHODS)
async def test_a_missing_queue_cannot_be_purged_or_deleted(broker, method):
    channel = await (await broker.connection()).channel()
    request, reply = METHODS[method]
    answer = await answer_of(channel, request(queue=broker.name("missing")), reply,
                             requirement=f"{method} of a missing queue is answered")
    observe("answer", shown(answer))
    if method == "delete" and not isinstance(answer, Reply):
        non_strict("delete-ok for a missing queue: RabbitMQ documents queue.delete as idempotent (D2)",
                   expected="channel.close 404", actual=shown(answer))
        return
    check(isinstance(answer, Reply) and (answer.scope, answer.code) == ("channel", NOT_FOUND),
          f"{method} of a missing queue is refused with channel.close 404", expected="channel.close 404",
          actual=shown(answer))
