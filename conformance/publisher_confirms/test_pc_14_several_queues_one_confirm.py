"""PC-14: a message routed to several queues is confirmed once, only after every queue
took it; if any of them refuses it (a durable classic queue at its x-max-length with
x-overflow=reject-publish), the publish is nacked once, and the other queues still hold it."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, ConfirmLedger, MUST, QUEUE_TYPES, check, rule, timeouts,
                                                  unsupported)

RULE = rule("PC-14", "A publish routed to several queues is acked once after all took it; nacked if one refused",
            strength=MUST, guide=CONFIRMS, section="server-sent-nacks", requires=("confirms",))

FULL = {"x-max-length": 1, "x-overflow": "reject-publish"}
PUBLISHES = 3


async def publish_one_at_a_time(broker, exchange):
    ledger = ConfirmLedger()
    async with broker.channel() as channel:
        await channel.confirm_select()
        for n in range(PUBLISHES):  # each confirmed before the next: one confirm per number is visible
            ledger.send(channel, b"%d" % n, exchange=exchange)
            await ledger.collect(channel)
    check(not ledger.outstanding and not ledger.problems, "each publish is confirmed exactly once",
          expected=f"1-{PUBLISHES} resolved once each", actual=ledger.problems or ledger.history())
    return ledger


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
@pytest.mark.case("all-take-it")
async def test_a_publish_every_queue_takes_is_acked_once(broker, queue_type):
    queues = [await broker.queue("classic"), await broker.queue(queue_type)]
    ledger = await publish_one_at_a_time(broker, await broker.fanout(*queues))
    nacked = [seq for seq, kinds in ledger.resolution.items() if not kinds[0].startswith("ack")]
    check(not nacked, "a publish every queue took is acked", expected="acks only", actual=ledger.history())
    # The ack means every queue has it: the counts are read only after the acks.
    held = await broker.ready_counts(*queues)
    check(set(held.values()) == {PUBLISHES}, "when the ack comes, every queue the message was routed to holds it",
          expected=f"{PUBLISHES} in each queue", actual=held)


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
@pytest.mark.case("one-refuses")
async def test_a_publish_one_queue_refuses_is_nacked_and_kept_by_the_others(broker, queue_type):
    full = await broker.queue("classic", arguments=FULL, messages=[b"filler"])
    healthy = await broker.queue(queue_type)
    ledger = await publish_one_at_a_time(broker, await broker.fanout(full, healthy))
    if (in_full := await broker.ready_count(full)) > 1:
        unsupported("the broker does not enforce x-max-length with x-overflow=reject-publish",
                    f"a queue declared with {FULL} holds {in_full} messages")
    acked = [seq for seq, kinds in ledger.resolution.items() if not kinds[0].startswith("nack")]
    check(not acked, "a publish one of its queues refused is nacked", expected=f"nack(1) .. nack({PUBLISHES})",
          actual=ledger.history())
    # The nack may come as soon as one queue refused, before another queue (a quorum
    # queue replicating over a slow link) has finished taking the message: the rule is
    # that it keeps it, so its count may take one reply bound to get there.
    kept = await broker.wait_ready_count(healthy, PUBLISHES, within=timeouts.REPLY)
    check(kept == PUBLISHES, "the queues that did not refuse the nacked messages still hold them",
          expected=f"{PUBLISHES} in the healthy queue", actual=kept)
