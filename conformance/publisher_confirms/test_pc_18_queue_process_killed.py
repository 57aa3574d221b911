"""PC-18: when the process of a queue fails during confirmed persistent publishing, every
outstanding publish is resolved exactly once, ack or nack, within a bound, and every acked
message is in the queue once it has recovered (the guide: a nack is sent only when an
internal error occurs in the Erlang process responsible for a queue).

On a managed node of the session broker's kind (the worker's patient node, whose
rabbitmqctl is at hand), `rabbitmqctl eval` arms a kill of the queue's process (a
classic queue's pid, a quorum queue's Ra server) for the moment the queue holds KILL_AT
messages; persistent publishes then stream in with up to WINDOW unconfirmed, so the kill
lands among publishes in flight. The node and its other queues go on. Whether the broker
acked or nacked what was in flight is recorded, not judged. Unsupported with --amqp-url
(the suite cannot reach a queue's process) and on brokers without rabbitmqctl."""

import asyncio

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, ConfirmLedger, MUST, QUEUE_TYPES, check, drain_queue,
                                                  message_ids, observe, queue_answers, rule, timeouts)

RULE = rule("PC-18", "A queue process killed during confirmed publishing: each publish resolved once; acked kept",
            strength=MUST, guide=CONFIRMS, section="server-sent-nacks", requires=("confirms",),
            needs=("managed-node",))

pytestmark = pytest.mark.fault

KILL_AT = 300  # messages in the queue when its process is killed
MESSAGES = 1000
BATCH, WINDOW = 25, 200  # publishes per step; how many may be unconfirmed before the next step


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_a_killed_queue_process_resolves_every_publish_once(queue_process_killer, patient_broker, queue_type):
    queue = await patient_broker.queue(queue_type)
    before = await queue_process_killer.arm(queue, at_count=KILL_AT, within=timeouts.REPLY * 3)
    ledger = ConfirmLedger()
    ids = message_ids("pc18", MESSAGES)
    async with patient_broker.channel() as channel:
        await channel.confirm_select()
        for start in range(0, MESSAGES, BATCH):
            ledger.send_ids(channel, queue, ids[start:start + BATCH])
            await ledger.wait(channel, ledger.published[:-WINDOW], within=timeouts.REPLY)
        await ledger.collect(channel, within=timeouts.REPLY * 3)
    restarted = asyncio.create_task(queue_process_killer.process(queue))  # a rabbitmqctl boot: meanwhile, judge

    check(not ledger.outstanding and not ledger.problems,
          "every publish is resolved exactly once, ack or nack, within the bound",
          expected=f"{MESSAGES} publishes, each acked or nacked once within {timeouts.REPLY * 3:.0f} s",
          actual=f"{len(ledger.outstanding)} unresolved; " + ("; ".join(ledger.problems[:5]) or "no double resolution"))
    acked = {ids[seq - 1] for seq, kinds in ledger.resolution.items() if kinds[0].startswith("ack")}
    observe("resolution", f"{len(acked)} acked, {MESSAGES - len(acked)} nacked")

    ready = await queue_answers(patient_broker, queue, within=timeouts.REPLY * 3)
    check(ready is not None, "the queue recovers after its process was killed",
          expected="a passive declare answered", actual=f"no answer within {timeouts.REPLY * 3:.0f} s")
    drained = await drain_queue(patient_broker, None, queue, expect=acked, within=timeouts.REPLY * 3)
    found = {d.message_id for d in drained}
    lost = sorted(acked - found)
    after = await restarted
    if after == before:
        raise RuntimeError(f"the queue's process {before} was not killed at {KILL_AT} messages: nothing was judged")
    observe("queue process", f"{before} killed at {KILL_AT} messages; {after} after the restart")
    check(not lost, "every acked message is in the queue after it recovered",
          expected=f"{len(acked)} acked messages", actual=f"{len(lost)} missing: {lost[:10]}")
