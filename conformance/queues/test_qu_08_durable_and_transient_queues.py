"""QU-08: a broker supports both durable and transient queues: both can be declared,
and after a restart the durable one is there and the transient one is gone.

Source: queue/declare/durable [types]. RabbitMQ 4.3 and later documents refusing
transient shared (non-exclusive) queues by default (D26): that refusal is non-strict,
naming D26, and a transient exclusive queue must then still be accepted. The restart is
a clean stop and start of a node the suite started for this module (a server restart,
as the spec says; a kill -9's crash window is PC-10's); with a broker at a URL the rule
is unsupported."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, CrashQueue, Reply, answer_of, check, exists,
                                                  expect_exists, expect_reply, non_strict, observe, restart, rule,
                                                  shown, spec)

RULE = rule("QU-08", "Durable and transient queues can both be declared; the transient one is gone after restart",
            strength=MUST, guide=SPEC, section="queue.declare.durable", source="queue/declare/durable [types]",
            needs=("restart",),
            accepts=("a refused transient shared queue, when a transient exclusive one is accepted (non-strict: "
                     "RabbitMQ 4.3 refuses transient non-exclusive queues by default, D26)"))

pytestmark = pytest.mark.fault


async def test_durable_and_transient_queues_and_a_restart(crashable_broker):
    durable = await CrashQueue.declare(crashable_broker, "classic")
    channel = await (await crashable_broker.connection()).channel()
    transient = crashable_broker.adopt(crashable_broker.name("transient"))
    answer = await answer_of(channel, spec.Queue.Declare(queue=transient, durable=False,
                                                         arguments=crashable_broker.queue_arguments("classic")),
                             spec.Queue.DeclareOk, requirement="a transient queue declare is answered")
    observe("transient shared queue", shown(answer))
    if isinstance(answer, Reply):
        exclusive = await (await crashable_broker.connection()).channel()
        await expect_reply(exclusive, spec.Queue.Declare(queue=crashable_broker.name("transient-exclusive"),
                                                         exclusive=True),
                           spec.Queue.DeclareOk, "a transient exclusive queue is accepted")
        non_strict("a transient shared queue was refused; a transient exclusive one was accepted (RabbitMQ 4.3 "
                   "refuses transient non-exclusive queues by default, D26)", expected="declare-ok",
                   actual=shown(answer))
        transient = None
    observe("restart took", f"{await restart(crashable_broker):.1f} s")
    after = await crashable_broker.connection()
    await expect_exists(after, durable.name, "the durable queue exists after the restart")
    if transient is not None:
        found = await exists(after, transient)
        check(found is None, "the transient queue is gone after the restart (passive declare refused with 404)",
              expected="channel.close 404", actual=shown(found) if found else "")
