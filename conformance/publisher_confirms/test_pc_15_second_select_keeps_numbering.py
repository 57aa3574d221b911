"""PC-15: sequence numbers count from the first confirm.select. A second confirm.select on
the channel is answered (select-ok, unless no-wait) and does not restart the count: the
next publish is confirmed with the next number. Raw frames: client libraries do not put
a second confirm.select on the wire.

The confirm ledger judges the frames: once 1 and 2 are confirmed, ack(3) confirms exactly
publish 3 whether it says multiple=true or not (the guide lets a broker set multiple on
any ack); ack(1) for the third publish means the count restarted."""

import pytest
from pamqp.commands import Confirm as ConfirmClass

from amqp_conformance.fixtures.vocabulary import CONFIRMS, ConfirmLedger, MUST, check, expect_reply, rule, timeouts

RULE = rule("PC-15", "A second confirm.select is answered and does not reset the sequence numbers",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms", requires=("confirms",),
            accepts=("after select-ok or a no-wait select, ack(3) with multiple=true or false once 1 "
                     "and 2 are confirmed: either confirms exactly publish 3"))


@pytest.mark.parametrize("nowait", [False, True], ids=["select-ok", "no-wait"])
async def test_a_second_confirm_select_keeps_the_count(broker, nowait):
    queue = await broker.queue()
    ledger = ConfirmLedger()
    async with broker.channel() as channel:
        await channel.confirm_select()
        for _ in (1, 2):
            await ledger.wait(channel, [ledger.send(channel, b"before the second select", routing_key=queue)],
                              within=timeouts.REPLY)
        if nowait:
            channel.send(ConfirmClass.Select(nowait=True))
        else:
            await expect_reply(channel, ConfirmClass.Select(), ConfirmClass.SelectOk,
                               "a second confirm.select on a confirm channel is answered select-ok")
        after = ledger.send(channel, b"after the second select", routing_key=queue)
        await ledger.collect(channel, within=timeouts.REPLY)
    check(ledger.acked_once(after) and not ledger.problems and not ledger.outstanding,
          "the publish after a second confirm.select gets the next sequence number",
          expected="publishes 1, 2, 3 each acked once: ack(3), with multiple either way",
          actual=f"{ledger.problems or ledger.history()} (ack(1) again would mean the count restarted)")
