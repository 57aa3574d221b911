"""TX-01: a transactional channel cannot be put into confirm mode: confirm.select after
tx.select is refused. The guide does not say how: any close of the channel or its
connection passes; RabbitMQ's channel.close 406 PRECONDITION_FAILED is the SHOULD."""

from pamqp.commands import Confirm

from amqp_conformance.fixtures.vocabulary import CONFIRMS, MUST, expect_refused, rule

RULE = rule("TX-01", "A transactional channel cannot be put in confirm mode",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms", requires=("tx",),
            accepts=("any close of the channel or the connection; another code or scope than "
                     "RabbitMQ's channel.close 406 is non-strict"))


async def test_confirm_select_on_a_transactional_channel_closes_it(broker):
    async with broker.channel() as channel:
        await channel.tx_select()
        channel.send(Confirm.Select())
        await expect_refused(channel, code=406, text="cannot switch from tx to confirm mode",
                             requirement="confirm.select on a transactional channel is refused")
