"""RQ-06: on quorum queues endless requeueing is bounded by a delivery limit: each
redelivery carries an x-delivery-count header, and a message returned more often than
x-delivery-limit is dropped (or dead-lettered). RabbitMQ 4.0+ applies a default limit of
20; 3.10 has none, so the limit is set explicitly here. Measured and recorded only."""

from amqp_conformance.fixtures.vocabulary import CONFIRMS, INFO, observe, rule, timeouts, unsupported

RULE = rule("RQ-06", "Requeueing on quorum queues is bounded by x-delivery-limit, counted in x-delivery-count",
            strength=INFO, guide=CONFIRMS, section="consumer-nacks-requeue")

DELIVERY_LIMIT = 2
ATTEMPTS = DELIVERY_LIMIT + 4


async def test_requeue_loop_ends_at_the_delivery_limit(broker):
    queue = await broker.queue("quorum", messages=[b"poison"], arguments={"x-delivery-limit": DELIVERY_LIMIT})
    deliveries = []
    async with broker.channel() as channel:
        while len(deliveries) < ATTEMPTS and await broker.wait_ready_count(queue, 1, within=timeouts.NEGATIVE_WINDOW):
            delivery = await channel.get(queue)
            if delivery is None:
                break
            deliveries.append(delivery)
            channel.reject(delivery.delivery_tag, requeue=True)
        await channel.barrier()

    counts = [(d.properties.headers or {}).get("x-delivery-count") for d in deliveries]
    dropped = len(deliveries) < ATTEMPTS
    observe("x-delivery-limit", DELIVERY_LIMIT)
    observe("deliveries seen", len(deliveries))
    observe("x-delivery-count per delivery", counts)
    observe("dropped after the limit", dropped)
    if not dropped and not any(counts):
        unsupported("no delivery limit on quorum queues",
                    f"probe: with x-delivery-limit={DELIVERY_LIMIT} the message was requeued and delivered "
                    f"{len(deliveries)} times, never with an x-delivery-count header")
