"""FLT-08: a broker killed with kill -9 and started again on the same data keeps every
persistent message it confirmed for a durable queue (PC-10);
messages a consumer had received unacked come back flagged redelivered, and
redelivered=false is left for messages never delivered. Runs on a node of its own.

Unlike PC-10, which publishes the moment its queue is declared (the client's whole view),
this rule starts once the queue's record is on disk: it judges the messages alone, not
how fast the broker persists a fresh declaration."""

import asyncio

import pytest

from amqp_faults.workloads import confirms, drain_queue, message_ids, publish, queue_answers, receive
from fixtures import CONFIRMS, MUST, check, observe, rule, timeouts
from fixtures.verdicts import attach
from fixtures.history import expect_none

RULE = rule("FLT-08", "A broker killed (kill -9) and restarted keeps every confirmed persistent message",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms-and-guaranteed-delivery")

pytestmark = pytest.mark.fault
PER_QUEUE, HELD_UNACKED = 20, 5
# Quorum queues too, once a single-node quorum queue answers basic.consume promptly after
# kill -9 (RabbitMQ 3.10.8 here: no consume-ok within 3 s after the restart).
QUEUE_TYPES = ("classic",)
RESTART_WINDOW_S = 30.0  # queues recover after boot, slowly on a loaded machine; bounded


async def test_confirmed_persistent_messages_survive_kill_9(crashable_broker, history):
    broker = crashable_broker  # a node of this module's own (fixtures.dedicated)
    node = broker.managed
    history.fault_name, history.queue_type = "kill -9, restart", "+".join(QUEUE_TYPES)
    queues = {kind: await broker.queue(kind) for kind in QUEUE_TYPES}
    for queue in queues.values():
        took = await broker.wait_until_on_disk(queue, within=RESTART_WINDOW_S)
        observe("queue declaration on disk after", broker.on_disk_text(took))
    ids = {kind: message_ids(f"flt08-{kind}", PER_QUEUE) for kind in queues}
    publisher = await history.watch(await broker.connection()).channel()
    await publisher.confirm_select()
    for kind, queue in queues.items():
        publish(publisher, queue, ids[kind], persistent=True)
    await confirms(publisher, set(range(1, len(queues) * PER_QUEUE + 1)), within=timeouts.REPLY * 2)
    consumer = await history.watch(await broker.connection()).channel()
    await consumer.qos(HELD_UNACKED)
    await consumer.consume(queues["classic"])
    held = await receive(consumer, HELD_UNACKED)

    history.fault("kill -9", "applied", f"SIGKILL to the {node.name} node's process group")
    await asyncio.to_thread(node.kill)
    await asyncio.to_thread(node.start)
    history.fault("kill -9", "removed", "started again on the same data dir")
    await broker.forget_admin()
    for queue in queues.values():
        check(await queue_answers(broker, queue, within=RESTART_WINDOW_S) is not None,
              "the durable queue is there after the restart", expected=f"{queue} answers a passive declare",
              actual=f"no answer, or not found, within {RESTART_WINDOW_S:.0f} s")
        await drain_queue(broker, history, queue, expect=history.confirmed_ids(), within=RESTART_WINDOW_S)

    attach("restarted node's log (tail)", node.log_tail(60))
    verdict = history.check()
    check(verdict.confirmed == len(queues) * PER_QUEUE and len(held) == HELD_UNACKED, "the broker confirmed every "
          "publish and a consumer held deliveries before the crash",
          expected=f"{len(queues) * PER_QUEUE} confirmed, {HELD_UNACKED} held", actual=f"{verdict.confirmed}, {len(held)}")
    expect_none(verdict, "lost", "every confirmed persistent message survives kill -9 and restart")
    expect_none(verdict, "unflagged_redeliveries", "a message delivered before the crash comes back flagged")
