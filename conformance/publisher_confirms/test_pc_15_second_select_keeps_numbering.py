"""PC-15: sequence numbers count from the first confirm.select. A second confirm.select on
the channel is answered (select-ok, unless no-wait) and does not restart the count: the
next publish is confirmed with the next number. Raw frames: client libraries do not put
a second confirm.select on the wire."""

import pytest
from pamqp.commands import Confirm as ConfirmClass

from fixtures import CONFIRMS, MUST, Confirm, check, expect_reply, rule

RULE = rule("PC-15", "A second confirm.select is answered and does not reset the sequence numbers",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms", requires=("confirms",))


@pytest.mark.parametrize("nowait", [False, True], ids=["select-ok", "no-wait"])
async def test_a_second_confirm_select_keeps_the_count(broker, nowait):
    queue = await broker.queue()
    async with broker.channel() as channel:
        await channel.confirm_select()
        for seq in (1, 2):
            channel.publish(b"before %d" % seq, routing_key=queue)
            await channel.expect(Confirm, waiting_for=f"the confirm of publish {seq}")
        if nowait:
            channel.send(ConfirmClass.Select(nowait=True))
        else:
            await expect_reply(channel, ConfirmClass.Select(), ConfirmClass.SelectOk,
                               "a second confirm.select on a confirm channel is answered select-ok")
        channel.publish(b"after the second select", routing_key=queue)
        confirm = await channel.expect(Confirm, waiting_for="the confirm of the publish after the second select")
    check(confirm.ack and confirm.delivery_tag == 3 and not confirm.multiple,
          "the publish after a second confirm.select gets the next sequence number",
          expected="ack(3)", actual=f"{confirm} (ack(1) would mean the count restarted)")
