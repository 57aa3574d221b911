"""CH-07: a channel's end touches no other channel: after a client channel.close (answered
with close-ok) or a channel exception of any code (403, 404, 405, 406), another channel of
the same connection keeps its consumer, its unacked delivery (acking it is no error) and
its flow of deliveries.

Source: PDF 2.3.6, 2.3.7, 4.8.1 (a channel exception closes only its channel). ACK-12
judges the same for ack errors; RD-01 what becomes of the closed channel's own deliveries."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CHANNEL_EXCEPTIONS, MUST, SPEC, check, close_by_client, expect_open,
                                                  not_exercised, provoked_close, publish_on, receive, rule)

RULE = rule("CH-07", "A channel close or channel exception touches no other channel",
            strength=MUST, guide=SPEC, section="channel.close", source="PDF 2.3.6; PDF 2.3.7; PDF 4.8.1",
            accepts=("any close of the provoking channel, whatever its code (the rule that names the code judges "
                     "it); a broker that raises nothing, or a connection exception, leaves that case not exercised"))

ENDINGS = ["client-close", *(f"exception-{code}" for code in CHANNEL_EXCEPTIONS)]


@pytest.mark.parametrize("ending", ENDINGS)
async def test_a_channel_ends_alone(broker, ending):
    queue = await broker.queue(messages=[b"held unacked"])
    connection = await broker.connection()
    survivor, ending_channel = await connection.channel(), await connection.channel()
    tag = await survivor.consume(queue)
    held = (await receive(survivor, 1))[0]
    if ending == "client-close":
        problem = await close_by_client(ending_channel)
        check(problem is None, "a client channel.close is answered with close-ok", expected="close-ok", actual=problem)
    else:
        code = int(ending.split("-")[1])
        await CHANNEL_EXCEPTIONS[code](broker, ending_channel)
        ended = await provoked_close(ending_channel)
        if ended is None or ended.scope == "connection":
            not_exercised(f"the broker raised {'no exception' if ended is None else 'a connection exception'} for "
                          f"what the spec answers with channel exception {code} (the rule that names the code judges "
                          "that): no channel ended alone")
            return
    await expect_open(survivor, "the other channel stays open")
    survivor.ack(held.delivery_tag)
    await expect_open(survivor, "its unacked delivery is still its own: acking it is no error")
    publish_on(survivor, b"after the other channel ended", key=queue)
    delivered = await receive(survivor, 1)
    check([d.body for d in delivered] == [b"after the other channel ended"] and delivered[0].consumer_tag == tag,
          "its consumer still receives", expected=[b"after the other channel ended"],
          actual=[d.body for d in delivered])
