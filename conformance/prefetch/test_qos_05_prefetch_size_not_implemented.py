"""QOS-05: a prefetch size (a byte limit) other than 0 is not implemented by RabbitMQ,
which closes the connection with 540 NOT_IMPLEMENTED. Other brokers close only the
channel, or honour the limit; the scope, code and text seen are recorded."""

from pamqp.commands import Basic

from fixtures import CONFIRMS, INFO, Reply, observe, rule, timeouts

RULE = rule("QOS-05", "A non-zero prefetch size is not implemented (the reply and its scope are recorded)",
            strength=INFO, guide=CONFIRMS, section="channel-qos-prefetch")

PREFETCH_SIZE = 1000
RABBITMQ_REPLY = "connection.close 540 'NOT_IMPLEMENTED - prefetch_size!=0 (1000)'"


async def test_prefetch_size_reply_is_recorded(broker):
    async with broker.channel() as channel:
        channel.send(Basic.Qos(prefetch_size=PREFETCH_SIZE, prefetch_count=0))
        reply = await channel.watch(Basic.QosOk, within=timeouts.REPLY)
    if isinstance(reply, Reply):
        seen = f"refused: {reply}"
    elif reply is None:
        seen = f"no reply within {timeouts.REPLY:.1f} s"
    else:
        seen = "accepted (basic.qos-ok)"
    observe("prefetch_size reply", seen)
    observe("same as RabbitMQ", seen == f"refused: {RABBITMQ_REPLY}")
