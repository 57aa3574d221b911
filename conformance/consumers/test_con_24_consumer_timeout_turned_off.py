"""CON-24: the consumer timeout can be turned off: on a node whose rabbitmq.conf sets a short
`consumer_timeout` (the suite's 2.5 s) and whose advanced.config then turns it off
(`consumer_timeout = undefined`, the guide's way), a delivery held unacked well past that
short timeout (the whole wait the suite allows it: the timeout, a check interval and the
margin) is not timed out (no channel close, no basic.cancel) and stays ackable. A node that
ignored "off" would keep the short value beneath it and time out within the hold, so the
case tells "off" from a default merely longer than the hold. The guide's "a forgotten ack
leaves the message unacknowledged indefinitely" rests on this case too. On demand
(`-m long`): a node with no consumer_timeout setting at all keeps a delivery held for
longer than RabbitMQ's default check interval (one minute) plus the longest timeout this
suite sets; the guide's claim, a 30-minute default, is recorded beside it.

Both run on nodes the suite starts and configures (the patient node; for `-m long` a node
of its own), so a broker at a URL is unsupported; brokers with no consumer timeout at all
(conformance/brokers.toml) are unsupported too: there is nothing to turn off."""

import pytest
from pamqp.commands import Basic

from amqp_conformance.fixtures.vocabulary import (CONSUMERS, DEFAULT_TIMEOUT_CLAIM, MUST, QUEUE_TYPES, check,
                                                  consumer_timeout_wait, expect_open, longest_default_hold, observe,
                                                  rule, timeouts)

RULE = rule("CON-24", "The consumer timeout can be turned off; its default is long",
            strength=MUST, guide=CONSUMERS, section="acknowledgement-timeout",
            needs=("managed-node",))

async def held_without_timeout(node_broker, queue_type: str, hold: float) -> None:
    queue = await node_broker.queue(queue_type, messages=[b"held"])
    channel = await (await node_broker.connection()).channel()
    await channel.consume(queue)
    delivery = await channel.expect_delivery()
    observe("held for", f"{hold:.1f} s")
    action = await channel.watch(Basic.Cancel, within=hold)
    check(action is None, f"a delivery held {hold:.1f} s is not timed out",
          expected="no channel close and no basic.cancel", actual=str(action))
    channel.ack(delivery.delivery_tag)
    await expect_open(channel, "the channel stays open and the held delivery is ackable")


@pytest.mark.case("off")
@pytest.mark.node_setting("consumer-timeout")
@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_a_timeout_turned_off_lets_a_delivery_be_held(patient_broker, queue_type):
    await held_without_timeout(patient_broker, queue_type, consumer_timeout_wait())


@pytest.mark.case("default")
@pytest.mark.long
@pytest.mark.timeout(timeouts.NODE_BACKSTOP_S)  # a node of its own, then a minute's hold
@pytest.mark.node_setting("consumer-timeout")
@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_a_node_without_a_setting_keeps_a_delivery_long(default_timeout_broker, queue_type):
    observe("claim", DEFAULT_TIMEOUT_CLAIM)
    await held_without_timeout(default_timeout_broker, queue_type, longest_default_hold())
