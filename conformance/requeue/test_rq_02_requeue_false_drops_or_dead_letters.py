"""RQ-02: reject or nack with requeue=false never puts the message back. Without a
dead-letter exchange it is dropped; with one configured on the queue it is dead-lettered
there, carrying an x-death header.

A broker that dead-letters nothing at all (not even an expired message: the probe) is
unsupported for the dead-letter case; one that dead-letters expired messages but drops
rejected ones breaks the rule."""

import pytest
from pamqp.commands import Basic

from fixtures import (CONFIRMS, MUST, QUEUE_TYPES, check, expect_nothing_returns, expect_open, get_unacked, observe,
                      rule, unsupported, violation)

RULE = rule("RQ-02", "requeue=false drops the message, or dead-letters it when the queue has a dead-letter exchange",
            strength=MUST, guide=CONFIRMS, section="consumer-nacks-requeue")

BODIES = [b"rejected", b"nacked"]


def dead_letter_to(queue: str) -> dict:
    return {"x-dead-letter-exchange": "", "x-dead-letter-routing-key": queue}


async def settle_without_requeue(broker, queue):
    async with broker.channel() as channel:
        rejected, nacked = await get_unacked(channel, queue, 2)
        channel.reject(rejected.delivery_tag, requeue=False)
        channel.nack(nacked.delivery_tag, requeue=False)
        await expect_open(channel, "reject and nack with requeue=false are not errors")


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
@pytest.mark.case("no-dead-letter-exchange")
async def test_without_dead_letter_exchange_the_message_is_dropped(broker, queue_type):
    queue = await broker.queue(queue_type, messages=BODIES)
    await settle_without_requeue(broker, queue)
    await expect_nothing_returns(broker, queue, "a message rejected with requeue=false does not come back")


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
@pytest.mark.case("dead-letter-exchange")
async def test_with_dead_letter_exchange_the_message_is_dead_lettered(broker, queue_type):
    dead_letters = await broker.queue()
    queue = await broker.queue(queue_type, messages=BODIES, arguments=dead_letter_to(dead_letters))
    await settle_without_requeue(broker, queue)

    dead = await broker.take_all(dead_letters, expected=len(BODIES))
    if not dead:
        back = await broker.ready_count(queue)
        check(back == 0, "a message rejected with requeue=false does not come back",
              expected="0 ready in the source queue", actual=f"{back} ready")
        await require_dead_lettering(broker, dead_letters)
        raise violation("the broker dead-letters, so rejected messages go to the dead-letter exchange",
                        sorted(BODIES), "dropped")
    check(sorted(d.body for d in dead) == sorted(BODIES), "both settled messages are dead-lettered",
          expected=sorted(BODIES), actual=sorted(d.body for d in dead))
    reasons = [death.get("reason") for d in dead for death in ((d.properties.headers or {}).get("x-death") or [])]
    observe("x-death reasons", reasons)
    check(len(reasons) == len(BODIES), "each dead-lettered message carries an x-death header",
          expected="x-death on both", actual={d.body: (d.properties.headers or {}).get("x-death") for d in dead})


async def require_dead_lettering(broker, dead_letters):
    """Bounded probe: does the broker dead-letter a message that expires at once?"""
    probe_queue = await broker.queue(arguments=dead_letter_to(dead_letters))
    async with broker.channel() as channel:
        channel.publish(b"expires", routing_key=probe_queue, properties=Basic.Properties(expiration="0"))
        await channel.barrier()
    if not await broker.take_all(dead_letters, expected=1):
        unsupported("the broker does not dead-letter",
                    f"probe: rejected messages were dropped, and a message published with expiration=0 to a "
                    f"queue with x-dead-letter-exchange was not dead-lettered either "
                    f"({await broker.ready_count(probe_queue)} still ready in the probe queue)")
