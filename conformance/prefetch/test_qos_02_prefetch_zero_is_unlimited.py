"""QOS-02: a prefetch count of 0 means no limit: every ready message is delivered to a
manual-ack consumer without any ack."""

from amqp_conformance.fixtures.vocabulary import CONFIRMS, MUST, check, deliveries_until_quiet, rule

RULE = rule("QOS-02", "Prefetch 0 means no limit", strength=MUST, guide=CONFIRMS, section="channel-qos-prefetch")

READY = 50


async def test_prefetch_zero_delivers_everything_unacked(broker):
    queue = await broker.queue(messages=[b"m%d" % n for n in range(READY)])
    async with broker.channel() as channel:
        await channel.qos(1)
        await channel.qos(0)  # from a limit back to none: 0 must lift it, not keep the last value
        await channel.consume(queue)
        delivered = await deliveries_until_quiet(channel, expected=READY, quiet=0)
    check(len(delivered) == READY, "prefetch 0 delivers every ready message with none acked",
          expected=READY, actual=len(delivered))
