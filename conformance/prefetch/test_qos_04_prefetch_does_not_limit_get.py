"""QOS-04: the prefetch count does not apply to basic.get: with a consumer holding the
channel's whole prefetch unacked, manual-ack gets on that channel still succeed."""

from amqp_conformance.fixtures.vocabulary import CONFIRMS, MUST, NoReply, check, rule, timeouts

RULE = rule("QOS-04", "Prefetch does not limit basic.get, even with manual acks",
            strength=MUST, guide=CONFIRMS, section="channel-qos-prefetch")

GETS = 2


async def test_gets_succeed_while_the_prefetch_is_full(broker):
    consumed = await broker.queue(messages=[b"held", b"waiting"])
    fetched = await broker.queue(messages=[b"g%d" % n for n in range(GETS)])
    async with broker.channel() as channel:
        await channel.qos(1)
        await channel.consume(consumed)
        await channel.expect_delivery()  # the prefetch is now full
        gets = []
        for _ in range(GETS):
            try:
                gets.append("get-ok" if await channel.get(fetched) else "get-empty")
            except NoReply:
                gets.append(f"no reply within {timeouts.REPLY:.1f} s")
    check(gets == ["get-ok"] * GETS, "basic.get with manual ack succeeds while the consumer's prefetch is full",
          expected=["get-ok"] * GETS, actual=gets)
