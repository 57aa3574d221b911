"""TX-02: a channel in confirm mode cannot be made transactional: tx.select after
confirm.select closes the channel with 406 PRECONDITION_FAILED."""

from pamqp.commands import Tx

from fixtures import CONFIRMS, MUST, expect_closed, rule

RULE = rule("TX-02", "A channel in confirm mode cannot be made transactional",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms", requires=("tx", "confirms"))


async def test_tx_select_on_a_confirm_channel_closes_it(broker):
    async with broker.channel() as channel:
        await channel.confirm_select()
        channel.send(Tx.Select())
        await expect_closed(channel, code=406, text="cannot switch from confirm to tx mode",
                            requirement="tx.select on a channel in confirm mode closes the channel")
