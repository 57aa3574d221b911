"""CON-15: a message reaches its consumer unchanged: the delivery names the exchange and
routing key it was published with, and every basic property (content type and encoding,
headers, delivery mode, priority, correlation id, reply-to, expiration, message id,
timestamp, type, user id, app id) comes back exactly as sent. The broker neither validates
nor uses the type, content type and content encoding, so values that name no MIME type or
encoding come back as sent too.

The publish goes out raw, with every property set and headers of every common field
type. The report names each property that differs; if the message does not arrive at
all, each property is sent alone to name the ones that break it. A broker that cannot parse
a property closes the connection under a live consumer, on which garagemq has deadlocked:
the rule is listed among the wedges of conformance/brokers.toml (it runs last, on a node
of its own, before CON-09)."""

import datetime

import pytest
from pamqp.commands import Basic

from amqp_conformance.fixtures.vocabulary import (CONSUMERS, ConnectionLost, Delivery, MUST, QUEUE_TYPES, check, rule,
                                                  timeouts, violation)

RULE = rule("CON-15", "Delivery metadata and every message property reach the consumer unchanged",
            strength=MUST, guide=CONSUMERS, section="message-properties")

HEADERS = {"text": "värde", "count": 42, "negative": -7, "large": 2 ** 40, "flag": True,
           "nested": {"inner": "x"}, "list": [1, "two"]}
BODY = b'{"rule": "CON-15"}'
# Free text where a MIME type, an encoding and a type name would go: a broker that checked
# these fields would refuse, drop or rewrite them.
UNCHECKED = dict(content_type="no mime type; at all=", content_encoding="no such encoding",
                 message_type="any text, no schema")


def every_property(user_id: str) -> dict:
    # user_id must be the connection's own user: RabbitMQ refuses any other.
    return dict(content_type="application/json", content_encoding="gzip", headers=HEADERS, delivery_mode=2,
                priority=5, correlation_id="corr-15", reply_to="reply-queue", expiration="60000",
                message_id="msg-15", timestamp=datetime.datetime(2026, 11, 21, 12, tzinfo=datetime.timezone.utc),
                message_type="conformance.test", user_id=user_id, app_id="amqp-conformance")


async def round_trip(broker, queue_type: str, properties: dict) -> tuple[str, Delivery | str]:
    """Publish one message with `properties` to a fresh queue and consume it: the queue
    and the delivery, or what happened instead."""
    queue = await broker.queue(queue_type)
    async with broker.channel() as channel:
        await channel.consume(queue, no_ack=True)
        channel.publish(BODY, routing_key=queue, properties=Basic.Properties(**properties))
        try:
            outcome = await channel.watch(Delivery, within=timeouts.REPLY)
        except ConnectionLost:
            outcome = f"connection lost after: {channel.connection.trace[-1].what}"
    return queue, outcome if outcome is not None else f"no delivery within {timeouts.REPLY:.1f} s"


@pytest.mark.not_replayable_alone(
    "garagemq closes the connection (501) on the content header it cannot parse, and whether its reader has taken "
    "the body frame that follows first decides a second close (501 'unexpected content body frame'): seen in one "
    "replay on a loaded host and in none of the suite's runs, so a replay cannot be compared frame by frame")
@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_every_property_reaches_the_consumer_unchanged(broker, queue_type):
    sent = every_property(broker.target.username)
    queue, delivery = await round_trip(broker, queue_type, sent)
    if not isinstance(delivery, Delivery):
        alone = {f"{name}={value!r}": {name: value} for name, value in sent.items() if name != "headers"}
        alone.update({f"headers[{key!r}]": {"headers": {key: value}} for key, value in HEADERS.items()})
        outcomes = {label: (await round_trip(broker, queue_type, properties))[1] for label, properties in alone.items()}
        breaking = {label: str(outcome) for label, outcome in outcomes.items() if not isinstance(outcome, Delivery)}
        raise violation("a message with every property set reaches its consumer", "a delivery",
                        f"{delivery}; sent alone, these break it: {breaking}")

    received = dict(delivery.properties) if delivery.properties else {}
    differ = {name: {"sent": value, "received": received.get(name)}
              for name, value in sent.items() if received.get(name) != value}
    check(not differ, "every property arrives as published", expected="no property differs", actual=differ)
    check((delivery.exchange, delivery.routing_key, delivery.body) == ("", queue, BODY),
          "the delivery carries the exchange, routing key and body it was published with",
          expected=("", queue, BODY), actual=(delivery.exchange, delivery.routing_key, delivery.body))


@pytest.mark.case("unchecked-values")
@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_type_content_type_and_encoding_are_not_validated(broker, queue_type):
    queue, delivery = await round_trip(broker, queue_type, UNCHECKED)
    check(isinstance(delivery, Delivery), "a message whose type, content type and encoding are free text is delivered",
          expected="a delivery", actual=delivery)
    received = dict(delivery.properties) if delivery.properties else {}
    arrived = {name: received.get(name) for name in UNCHECKED}
    check(arrived == UNCHECKED, "type, content type and content encoding arrive as published, unchecked",
          expected=UNCHECKED, actual=arrived)
