"""TX-03: tx.commit or tx.rollback on a channel that never sent tx.select is an error:
the broker refuses it with a close. No guide sentence gives the code: any close of the
channel or its connection passes; RabbitMQ's channel.close 406 PRECONDITION_FAILED is the
SHOULD (Qpid Broker-J answers 503), as in TX-01/02."""

import pytest
from pamqp.commands import Tx

from amqp_conformance.fixtures.vocabulary import CONFIRMS, MUST, expect_refused, rule

RULE = rule("TX-03", "tx.commit / tx.rollback without tx.select are refused",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms", requires=("tx",),
            accepts=("any close of the channel or the connection; another code or scope than RabbitMQ's "
                     "channel.close 406 is non-strict"))

ENDINGS = {"commit": Tx.Commit, "rollback": Tx.Rollback}


@pytest.mark.parametrize("ending", ENDINGS)
async def test_ending_a_transaction_that_never_began_closes_the_channel(broker, ending):
    async with broker.channel() as channel:
        channel.send(ENDINGS[ending]())
        await expect_refused(channel, code=406, text="channel is not transactional",
                             requirement=f"tx.{ending} on a non-transactional channel is refused")
