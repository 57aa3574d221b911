"""TX-07: sending tx.select on a channel that is already transactional is harmless:
RabbitMQ answers select-ok again. The reply seen is recorded."""

from amqp_conformance.fixtures.vocabulary import CONFIRMS, INFO, observe_answer, rule

RULE = rule("TX-07", "tx.select twice is answered twice (the reply is recorded)",
            strength=INFO, guide=CONFIRMS, section="publisher-confirms", requires=("tx",))


async def test_second_tx_select_reply_is_recorded(broker):
    async with broker.channel() as channel:
        await channel.tx_select()
        await observe_answer("second tx.select", channel.tx_select(), lambda _: "select-ok")
