"""PC-10: a persistent message confirmed by the broker, in a durable queue, survives a
broker crash (kill -9) and restart: every publish of a batch of 200 must be confirmed,
and every acked one must be there after the restart. This needs a broker process the
suite owns: a node started for this module alone (amqp_conformance.fixtures.vocabulary.dedicated), so the crash
cannot disturb tests running beside it; with --amqp-url the rule is unsupported."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, ConfirmLedger, CrashQueue, MUST, QUEUE_TYPES, check,
                                                  non_strict, observe, rule, timeouts)

RULE = rule("PC-10", "A confirmed persistent message in a durable queue survives kill -9 and restart",
            strength=MUST, guide=CONFIRMS, section="when-publishes-are-confirmed", requires=("confirms",),
            needs=("restart",))

# A process fault: `-m "not fault"` leaves it out of quick runs. The backstop covers
# starting the module's node and restarting it (Qpid: about 30 s each on a loaded host).
pytestmark = pytest.mark.fault

MESSAGES = 200


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_confirmed_messages_survive_kill_9(crashable_broker, queue_type):
    queue = await CrashQueue.declare(crashable_broker, queue_type)
    ledger = ConfirmLedger()
    async with crashable_broker.channel() as channel:
        await channel.confirm_select()
        bodies = {seq: b"%d" % seq for seq in range(1, MESSAGES + 1)}
        for body in bodies.values():
            ledger.send(channel, body, routing_key=queue.name, persistent=True)
        await ledger.collect(channel, within=timeouts.REPLY * 3)
        confirmed = {bodies[seq] for seq, kinds in ledger.resolution.items() if kinds[0].startswith("ack")}
        await queue.crash_and_restart()

    # The whole batch is judged: a broker that confirmed one publish and left the rest
    # unresolved must not pass on that one.
    check(not ledger.outstanding, "every publish of the batch is confirmed before the crash",
          expected=f"{MESSAGES} resolved", actual=f"{len(ledger.outstanding)} unresolved\n{ledger.history()}")
    observe("confirmed before the crash", len(confirmed))
    if len(confirmed) < MESSAGES:
        non_strict(f"{MESSAGES - len(confirmed)} of {MESSAGES} persistent publishes to a healthy durable queue were "
                   "nacked (PC-16: a nack means the broker could not take the message); the acked ones are judged")
    check(confirmed, "the broker acked publishes of the batch (needed to judge them)",
          expected=f"{MESSAGES} acks", actual=ledger.history())
    await queue.expect_survivors(confirmed, "confirmed")
