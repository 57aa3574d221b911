"""PC-10: a persistent message confirmed by the broker, in a durable queue, survives a
broker crash (kill -9) and restart. This needs a broker process the suite owns: a node
started for this module alone (fixtures.dedicated), so the crash cannot disturb tests
running beside it; with --amqp-url the rule is unsupported."""

import time

import pytest

from fixtures import CONFIRMS, MUST, QUEUE_TYPES, ConfirmLedger, NoReply, check, observe, rule, timeouts, violation
from fixtures.crash_window import queue_state

RULE = rule("PC-10", "A confirmed persistent message in a durable queue survives kill -9 and restart",
            strength=MUST, guide=CONFIRMS, section="when-publishes-are-confirmed", requires=("confirms",))

# A process fault: `-m "not fault"` leaves it out of quick runs. The backstop covers
# starting the module's node and restarting it (Qpid: about 30 s each on a loaded host).
pytestmark = [pytest.mark.fault, pytest.mark.timeout(timeouts.NODE_BACKSTOP_S)]

MESSAGES = 200


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_confirmed_messages_survive_kill_9(crashable_broker, queue_type):
    broker = crashable_broker
    queue = await broker.queue(queue_type)
    declared_at = time.monotonic()
    # The rule is about confirmed messages: they start once the queue itself survives a
    # crash, its own metadata on disk (the metadata store, and for a quorum queue the Ra
    # directory: ManagedBroker.metadata_files). A durable queue answered declare-ok can
    # still be lost by a kill -9 for about a second (python -m fixtures.crash_window).
    on_disk = await broker.wait_until_on_disk(queue, queue_type, within=timeouts.REPLY * 3)
    observe("queue metadata on disk after", broker.on_disk_text(on_disk))
    ledger = ConfirmLedger()
    async with broker.channel() as channel:
        await channel.confirm_select()
        bodies = {seq: b"%d" % seq for seq in range(1, MESSAGES + 1)}
        for body in bodies.values():
            ledger.publish(channel.publish(body, routing_key=queue, persistent=True))
        await ledger.collect(channel, within=timeouts.REPLY * 3)
        confirmed = {bodies[seq] for seq, kinds in ledger.resolution.items() if kinds[0].startswith("ack")}

        # INFO: a second durable queue, answered declare-ok just before the kill -9; whether
        # the crash keeps it (and what of it was on disk) is recorded, never judged.
        fresh = await broker.queue(queue_type)
        fresh_on_disk = broker.managed.metadata_on_disk(fresh, queue_type)
        observe("queue age at the crash", f"{time.monotonic() - declared_at:.1f} s")
        observe("restart took", f"{await broker.crash_and_restart():.1f} s")

    observe("a durable queue declared-ok just before the kill -9",
            f"{await queue_state(broker.target, fresh, within=timeouts.REPLY * 2)}; on disk at the crash: "
            + ", ".join(f"{artifact} {'yes' if held else 'no'}" for artifact, held in fresh_on_disk.items()))
    check(confirmed, "the broker confirmed the publishes (needed to judge them)",
          expected=f"{MESSAGES} acks", actual=ledger.history())
    observe("confirmed before the crash", len(confirmed))
    try:
        survivors = {d.body for d in await broker.take_all(queue, expected=len(confirmed),
                                                            within=timeouts.REPLY * 2)}
    except NoReply as silent:
        raise violation("the durable queue hands out its confirmed messages after the restart",
                        f"{len(confirmed)} messages", f"{silent}: the queue did not come back") from None
    observe("found after the restart", len(survivors))
    lost = sorted(confirmed - survivors, key=int)
    check(not lost, "every confirmed persistent message is in the durable queue after kill -9 and restart",
          expected=f"{len(confirmed)} messages", actual=f"{len(lost)} lost: {b' '.join(lost[:20])!r}")
