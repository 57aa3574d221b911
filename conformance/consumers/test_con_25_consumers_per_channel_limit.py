"""CON-25: with `consumer_max_per_channel` set, a basic.consume beyond the limit on one
channel is refused, and the consumers registered before it keep working. The guide does not
say how the limit is refused: any close of the channel or its connection passes; RabbitMQ's
connection.close 530 NOT_ALLOWED "reached maximum (N) of consumers per channel" is the
SHOULD.

530 is a connection exception in AMQP 0-9-1, so the refusing connection ends, and its own
consumers with it (RabbitMQ 4.0.5, measured): "keep working" is judged on the consumer
another connection registered before. Run on the patient node (limit
CONSUMERS_PER_CHANNEL_LIMIT); the setting exists from RabbitMQ 3.12.14 (version-gated,
conformance/brokers.toml), and only on nodes the suite configures."""

import pytest
from pamqp.commands import Basic

from amqp_conformance.fixtures.vocabulary import (CONSUMERS, CONSUMERS_PER_CHANNEL_LIMIT, MUST, check,
                                                  expect_consume_accepted, expect_open, expect_refused,
                                                  receive, rule)

RULE = rule("CON-25", "A consume beyond consumer_max_per_channel is refused; earlier consumers keep working",
            strength=MUST, guide=CONSUMERS, section="limiting-the-number-of-consumers-per-channel",
            needs=("managed-node",),
            accepts=("any close of the channel or the connection; another code or scope than RabbitMQ's "
                     "connection.close 530 is non-strict"))

REACHED_MAXIMUM = f"reached maximum ({CONSUMERS_PER_CHANNEL_LIMIT}) of consumers per channel"


@pytest.mark.node_setting("consumer-max-per-channel")
async def test_the_consume_beyond_the_limit_is_refused(patient_broker):
    queue = await patient_broker.queue("classic")
    earlier = await (await patient_broker.connection()).channel()
    await expect_consume_accepted(earlier, queue, requirement="a consumer on another connection is accepted")

    channel = await (await patient_broker.connection()).channel()
    for number in range(1, CONSUMERS_PER_CHANNEL_LIMIT + 1):
        await expect_consume_accepted(channel, queue, requirement=f"consumer {number} of the limit "
                                      f"({CONSUMERS_PER_CHANNEL_LIMIT}) on one channel is accepted")
    channel.send(Basic.Consume(queue=queue, consumer_tag="over-the-limit"))
    await expect_refused(channel, code=530, scope="connection", text=REACHED_MAXIMUM,
                         requirement="the consume beyond the limit is refused")

    await expect_open(earlier, "the earlier consumer's channel stays open")
    await patient_broker.publish(queue, b"after-the-refusal")
    got = await receive(earlier, 1)
    check([d.body for d in got] == [b"after-the-refusal"], "the earlier consumer keeps receiving",
          expected=[b"after-the-refusal"], actual=[d.body for d in got] or "nothing")
