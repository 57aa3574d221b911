"""TX-01: a transactional channel cannot be put into confirm mode: confirm.select after
tx.select closes the channel with 406 PRECONDITION_FAILED."""

from pamqp.commands import Confirm

from fixtures import CONFIRMS, MUST, expect_closed, rule

RULE = rule("TX-01", "A transactional channel cannot be put in confirm mode",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms", requires=("tx",))


async def test_confirm_select_on_a_transactional_channel_closes_it(broker):
    async with broker.channel() as channel:
        await channel.tx_select()
        channel.send(Confirm.Select())
        await expect_closed(channel, code=406, text="cannot switch from tx to confirm mode",
                            requirement="confirm.select on a transactional channel closes the channel")
