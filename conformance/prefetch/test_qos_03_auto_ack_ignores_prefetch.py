"""QOS-03: a consumer in automatic-acknowledgement mode (no-ack) is not limited by the
channel's prefetch count: every ready message is delivered."""

from amqp_conformance.fixtures.vocabulary import CONFIRMS, MUST, check, deliveries_until_quiet, rule

RULE = rule("QOS-03", "Automatic-ack consumers are not limited by prefetch",
            strength=MUST, guide=CONFIRMS, section="channel-qos-prefetch")

READY = 20


async def test_auto_ack_consumer_gets_everything_despite_prefetch_one(broker):
    queue = await broker.queue(messages=[b"m%d" % n for n in range(READY)])
    async with broker.channel() as channel:
        await channel.qos(1)
        await channel.consume(queue, no_ack=True)
        delivered = await deliveries_until_quiet(channel, expected=READY, quiet=0)
    check(len(delivered) == READY, "with prefetch 1 an automatic-ack consumer still receives every message",
          expected=READY, actual=len(delivered))
