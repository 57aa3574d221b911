"""TX-03: tx.commit or tx.rollback on a channel that never sent tx.select is an error:
the broker closes the channel with 406 PRECONDITION_FAILED."""

import pytest
from pamqp.commands import Tx

from amqp_conformance.fixtures.vocabulary import CONFIRMS, MUST, expect_closed, rule

RULE = rule("TX-03", "tx.commit / tx.rollback without tx.select close the channel",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms", requires=("tx",))

ENDINGS = {"commit": Tx.Commit, "rollback": Tx.Rollback}


@pytest.mark.parametrize("ending", ENDINGS)
async def test_ending_a_transaction_that_never_began_closes_the_channel(broker, ending):
    async with broker.channel() as channel:
        channel.send(ENDINGS[ending]())
        await expect_closed(channel, code=406, text="channel is not transactional",
                            requirement=f"tx.{ending} on a non-transactional channel closes the channel")
