"""CON-33: a new consumer on a queue that holds ready messages starts receiving them at
once, with nothing more published; on a queue that is empty when it registers, its first
delivery comes with the next message enqueued.

"At once" is judged as the suite judges every reply: each delivery within the reply bound
(which grows with the harness's measured lag) and with nothing else published meanwhile.
The guide names no finer clock, so none is asked. The order of the ready messages is
CON-16's and the RQ rules' business, not this rule's."""

import pytest

from amqp_conformance.fixtures.vocabulary import CONSUMERS, MUST, QUEUE_TYPES, check, deliveries_until_quiet, rule

RULE = rule("CON-33", "A new consumer receives the queue's ready messages at once; on an empty queue, the next one",
            strength=MUST, guide=CONSUMERS, section="basics")

READY = [b"ready-1", b"ready-2", b"ready-3"]
NEXT = b"next"


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
@pytest.mark.case("ready")
async def test_a_new_consumer_receives_the_ready_messages_at_once(broker, queue_type):
    queue = await broker.queue(queue_type, messages=READY)
    async with broker.channel() as channel:
        await channel.consume(queue)
        delivered = await deliveries_until_quiet(channel, expected=len(READY), quiet=0)
    bodies = sorted(d.body for d in delivered)
    check(bodies == READY, "a consumer registered on a queue with ready messages receives them, with nothing "
          "more published", expected=READY, actual=bodies)


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
@pytest.mark.case("empty")
async def test_on_an_empty_queue_the_next_message_is_the_first_delivery(broker, queue_type):
    queue = await broker.queue(queue_type)
    async with broker.channel() as channel:
        await channel.consume(queue)
        await broker.publish(queue, NEXT)
        delivered = await deliveries_until_quiet(channel, expected=1, quiet=0)
    bodies = [d.body for d in delivered]
    check(bodies == [NEXT], "a consumer registered on an empty queue receives the next message enqueued",
          expected=[NEXT], actual=bodies)
