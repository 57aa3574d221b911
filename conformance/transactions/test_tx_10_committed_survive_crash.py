"""TX-10: persistent messages committed to a durable queue survive a broker crash
(kill -9) and restart: tx.commit-ok means the broker has them. This needs a broker process
the suite owns (amqp_conformance.fixtures.vocabulary.dedicated, as PC-10); with --amqp-url the rule is unsupported."""

import pytest

from amqp_conformance.fixtures.vocabulary import CONFIRMS, MUST, QUEUE_TYPES, CrashQueue, observe, rule

RULE = rule("TX-10", "Persistent messages committed to a durable queue survive kill -9 and restart",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms", requires=("tx",),
            needs=("restart",))

# A process fault: `-m "not fault"` leaves it out of quick runs. Starting a dedicated node and
# restarting it can take a JVM broker (Qpid) most of the default 60 s on a loaded machine.
pytestmark = pytest.mark.fault

TRANSACTIONS = 10
PER_TRANSACTION = 10
UNCOMMITTED = b"never committed"


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_committed_messages_survive_kill_9(crashable_broker, queue_type):
    queue = await CrashQueue.declare(crashable_broker, queue_type)
    committed = set()
    channel = await (await crashable_broker.connection()).channel()
    await channel.tx_select()
    for t in range(TRANSACTIONS):
        bodies = {b"%d-%d" % (t, n) for n in range(PER_TRANSACTION)}
        for body in sorted(bodies):
            channel.publish(body, routing_key=queue.name, persistent=True)
        await channel.tx_commit()
        committed |= bodies
    channel.publish(UNCOMMITTED, routing_key=queue.name, persistent=True)  # open at the crash: not judged
    await channel.barrier()
    await queue.crash_and_restart()

    found = await queue.expect_survivors(committed, "committed")
    observe("the uncommitted message found after the restart", UNCOMMITTED in found)
