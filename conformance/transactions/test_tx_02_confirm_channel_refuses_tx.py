"""TX-02: a channel in confirm mode cannot be made transactional: tx.select after
confirm.select is refused. The guide does not say how: any close of the channel or its
connection passes; RabbitMQ's channel.close 406 PRECONDITION_FAILED is the SHOULD."""

from pamqp.commands import Tx

from amqp_conformance.fixtures.vocabulary import CONFIRMS, MUST, expect_refused, rule

RULE = rule("TX-02", "A channel in confirm mode cannot be made transactional",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms", requires=("tx", "confirms"),
            accepts=("any close of the channel or the connection; another code or scope than "
                     "RabbitMQ's channel.close 406 is non-strict"))


async def test_tx_select_on_a_confirm_channel_closes_it(broker):
    async with broker.channel() as channel:
        await channel.confirm_select()
        channel.send(Tx.Select())
        await expect_refused(channel, code=406, text="cannot switch from confirm to tx mode",
                             requirement="tx.select on a channel in confirm mode is refused")
