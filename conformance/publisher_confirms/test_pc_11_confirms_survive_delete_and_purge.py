"""PC-11: publishes are still confirmed when their queue is deleted or purged right
after them, before the confirms could arrive."""

import pytest
from pamqp.commands import Queue

from amqp_conformance.fixtures.vocabulary import CONFIRMS, MUST, QUEUE_TYPES, ConfirmLedger, check, rule

RULE = rule("PC-11", "Confirms still arrive when the queue is deleted or purged right after the publish",
            strength=MUST, guide=CONFIRMS, section="when-publishes-are-confirmed", requires=("confirms",))

MESSAGES = 50
DISPOSE = {
    "delete": lambda queue: (Queue.Delete(queue=queue), Queue.DeleteOk),
    "purge": lambda queue: (Queue.Purge(queue=queue), Queue.PurgeOk),
}


@pytest.mark.parametrize("dispose", DISPOSE)
@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_publishes_are_confirmed_though_the_queue_goes(broker, queue_type, dispose):
    queue = await broker.queue(queue_type)
    ledger = ConfirmLedger()
    async with broker.channel() as channel:
        await channel.confirm_select()
        for n in range(MESSAGES):
            ledger.send(channel, b"%d" % n, routing_key=queue, persistent=True)
        await channel.call(*DISPOSE[dispose](queue))
        await ledger.collect(channel)
    check(not ledger.outstanding, f"every publish is confirmed although the queue was {dispose}d right after",
          expected=f"1-{MESSAGES} resolved", actual=f"never resolved: {ledger.outstanding}")
    check(not ledger.problems, "and each exactly once", expected="no duplicates", actual=ledger.problems)
