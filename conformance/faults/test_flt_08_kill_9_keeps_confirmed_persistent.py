"""FLT-08: a broker killed with kill -9 and started again on the same data keeps every
persistent message it confirmed for a durable queue (PC-10);
messages a consumer had received unacked come back flagged redelivered, and
redelivered=false is left for messages never delivered. Runs on a node of its own.

Unlike PC-10, which publishes the moment its queue is declared (the client's whole view),
this rule starts once the queue's record is on disk: it judges the messages alone, not
how fast the broker persists a fresh declaration."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, ConfirmLedger, CrashQueue, MUST, check, drain_queue,
                                                  expect_none, message_ids, queue_answers, receive, rule, timeouts)

RULE = rule("FLT-08", "A broker killed (kill -9) and restarted keeps every confirmed persistent message",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms-and-guaranteed-delivery",
            needs=("restart",))

pytestmark = pytest.mark.fault
PER_QUEUE, HELD_UNACKED = 20, 5
# Quorum queues too, once a single-node quorum queue answers basic.consume promptly after
# kill -9 (RabbitMQ 3.10.8 here: no consume-ok within 3 s after the restart).
QUEUE_TYPE = "classic"
RESTART_WINDOW_S = 30.0  # queues recover after boot, slowly on a loaded machine; bounded


async def test_confirmed_persistent_messages_survive_kill_9(crashable_broker, history):
    broker = crashable_broker  # a node of this module's own (amqp_conformance.fixtures.vocabulary.dedicated)
    history.fault_name, history.queue_type = "kill -9, restart", QUEUE_TYPE
    queue = await CrashQueue.declare(broker, QUEUE_TYPE)
    publisher = await history.watch(await broker.connection()).channel()
    await publisher.confirm_select()
    ledger = ConfirmLedger()
    ledger.send_ids(publisher, queue.name, message_ids(f"flt08-{QUEUE_TYPE}", PER_QUEUE), persistent=True)
    await ledger.wait(publisher, within=timeouts.REPLY * 2, until_cut=True)
    consumer = await history.watch(await broker.connection()).channel()
    await consumer.qos(HELD_UNACKED)
    await consumer.consume(queue.name)
    held = await receive(consumer, HELD_UNACKED)

    history.fault("kill -9", "applied", f"SIGKILL to the {broker.managed.name} node's process group")
    await queue.crash_and_restart()
    history.fault("kill -9", "removed", "started again on the same data dir")
    check(await queue_answers(broker, queue.name, within=RESTART_WINDOW_S) is not None,
          "the durable queue is there after the restart", expected=f"{queue.name} answers a passive declare",
          actual=f"no answer, or not found, within {RESTART_WINDOW_S:.0f} s")
    await drain_queue(broker, history, queue.name, expect=history.confirmed_ids(), within=RESTART_WINDOW_S)

    verdict = history.check()
    check(verdict.confirmed == PER_QUEUE and len(held) == HELD_UNACKED, "the broker confirmed every "
          "publish and a consumer held deliveries before the crash",
          expected=f"{PER_QUEUE} confirmed, {HELD_UNACKED} held", actual=f"{verdict.confirmed}, {len(held)}")
    expect_none(verdict, "lost", "every confirmed persistent message survives kill -9 and restart")
    expect_none(verdict, "unflagged_redeliveries", "a message delivered before the crash comes back flagged")
