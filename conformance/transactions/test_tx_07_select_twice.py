"""TX-07: sending tx.select on a channel that is already transactional is harmless:
RabbitMQ answers select-ok again. The reply seen is recorded."""

from pamqp.commands import Tx

from fixtures import CONFIRMS, INFO, Reply, observe, rule, timeouts

RULE = rule("TX-07", "tx.select twice is answered twice (the reply is recorded)",
            strength=INFO, guide=CONFIRMS, section="publisher-confirms", requires=("tx",))


async def test_second_tx_select_reply_is_recorded(broker):
    async with broker.channel() as channel:
        await channel.tx_select()
        channel.send(Tx.Select())
        reply = await channel.watch(Tx.SelectOk, within=timeouts.REPLY)
    observe("second tx.select", "select-ok" if isinstance(reply, Tx.SelectOk)
            else f"refused: {reply}" if isinstance(reply, Reply) else f"no reply within {timeouts.REPLY:.1f} s")
