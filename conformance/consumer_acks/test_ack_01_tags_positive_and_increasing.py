"""ACK-01: delivery tags are positive integers that grow with every delivery on a
channel, whether the message was pushed (basic.deliver) or pulled (basic.get-ok, in
either ack mode): one sequence per channel. Whether the sequence has no gaps is
recorded, not judged (RabbitMQ counts 1, 2, 3 …)."""

from amqp_conformance.fixtures.vocabulary import CONFIRMS, MUST, check, expect_deliveries, observe, rule

RULE = rule("ACK-01", "Delivery tags are positive and increase with every delivery; push and get share one sequence",
            strength=MUST, guide=CONFIRMS, section="consumer-acks-delivery-tags",
            accepts=("any positive, strictly increasing tags; gaps and the first value are recorded "
                     "(RabbitMQ counts 1, 2, 3 ...), not judged"))

BODIES = [b"get-1", b"get-no-ack", b"get-2", b"push-1", b"push-2", b"push-3"]


async def test_get_and_push_deliveries_share_one_increasing_sequence(broker):
    queue = await broker.queue(messages=BODIES)
    async with broker.channel() as channel:
        deliveries = [await channel.get(queue), await channel.get(queue, no_ack=True), await channel.get(queue)]
        await channel.consume(queue)
        deliveries += await expect_deliveries(channel, len(BODIES[3:]), "pushed deliveries")

    tags = [d.delivery_tag for d in deliveries]
    observe("delivery tags in arrival order", tags)
    observe("contiguous from 1", tags == list(range(1, len(tags) + 1)))
    check(all(tag > 0 for tag in tags), "delivery tags are positive", expected="every tag > 0", actual=tags)
    check(all(a < b for a, b in zip(tags, tags[1:])),
          "each delivery on a channel (get or push, either ack mode) gets a larger tag than the one before",
          expected="strictly increasing", actual=tags)
