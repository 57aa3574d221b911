"""PC-09: when a queue refuses a message (here a queue at its x-max-length with
x-overflow=reject-publish), the broker confirms that publish with basic.nack."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, QUEUE_TYPES, ConfirmLedger, check, rule,
                                                  unsupported)

RULE = rule("PC-09", "A publish the queue refuses (reject-publish overflow) is nacked",
            strength=MUST, guide=CONFIRMS, section="server-sent-nacks", requires=("confirms",))

LIMIT = {"x-max-length": 1, "x-overflow": "reject-publish"}
PUBLISHES = 4  # quorum queues start refusing a message late: more than two make a refusal certain


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_publishes_past_a_reject_publish_limit_are_nacked(broker, queue_type):
    queue = await broker.queue(queue_type, arguments=LIMIT)
    ledger = ConfirmLedger()
    async with broker.channel() as channel:
        await channel.confirm_select()
        # One at a time: a quorum queue tells the channel it is full asynchronously,
        # so a burst could all be taken before the word arrives.
        for n in range(PUBLISHES):
            ledger.send(channel, b"%d" % n, routing_key=queue)
            await ledger.collect(channel)
    check(not ledger.outstanding, "every publish is confirmed one way or the other",
          expected=f"1-{PUBLISHES} resolved", actual=ledger.history())

    held = await broker.ready_count(queue)
    if held >= PUBLISHES:
        # The probe: a queue that took everything ignored the limit; nothing was refused.
        unsupported("the broker does not enforce x-max-length with x-overflow=reject-publish",
                    f"a queue declared with {LIMIT} took all {held} of {PUBLISHES} messages")
    acked = [seq for seq, kinds in ledger.resolution.items() if kinds[0].startswith("ack")]
    check(len(acked) == held, "the publishes the queue refused are nacked; only those it took are acked",
          expected=f"{held} ack(s), {PUBLISHES - held} nack(s) (the queue took {held} of {PUBLISHES})",
          actual=" ".join(map(str, ledger.confirms)))
