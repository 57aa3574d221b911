"""QOS-05: a prefetch size (a byte limit) other than 0 is not implemented by RabbitMQ,
which closes the connection with 540 NOT_IMPLEMENTED. Other brokers close only the
channel, or honour the limit; the scope, code and text seen are recorded. RabbitMQ's
AMQP 0-9-1 reference says so, not the guides: nothing here is judged."""

from amqp_conformance.fixtures.vocabulary import CONFIRMS, INFO, observe, observe_answer, rule

RULE = rule("QOS-05", "A non-zero prefetch size is not implemented (the reply and its scope are recorded)",
            strength=INFO, guide=CONFIRMS, section="channel-qos-prefetch")

PREFETCH_SIZE = 1000
RABBITMQ_REPLY = "connection.close 540 'NOT_IMPLEMENTED - prefetch_size!=0 (1000)'"


async def test_prefetch_size_reply_is_recorded(broker):
    async with broker.channel() as channel:
        answer = await observe_answer("prefetch_size reply", channel.qos(0, prefetch_size=PREFETCH_SIZE),
                                      lambda _: "accepted (basic.qos-ok)")
    observe("same as RabbitMQ", answer.seen == f"refused: {RABBITMQ_REPLY}")
