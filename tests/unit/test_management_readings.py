"""A management API that lacks what CON-29 or CON-30 reads (a capacity metric, the consumers'
`active` field) makes the rule unsupported, with that reason, at the first reading that
shows it: never a fail, never after the whole polling bound. Stub readings stand in for
the API (a third-party broker's, recorded by hand: consumers listed without `active`)."""

import asyncio

import pytest

from amqp_conformance.fixtures.checking import verifiers
from amqp_conformance.fixtures.checking.verifiers import Unsupported
from amqp_conformance.fixtures.vocabulary.management import (ManagementAPI, capacity, lacks_active_flag,
                                                             lacks_capacity)

WITHOUT_ACTIVE = {"name": "q", "vhost": "/", "consumers": 2, "messages": 0, "messages_ready": 0,
                  "consumer_capacity": 1.0,
                  "consumer_details": [{"consumer_tag": "consumer-1", "ack_required": True, "prefetch_count": 0},
                                       {"consumer_tag": "consumer-2", "ack_required": True, "prefetch_count": 0}]}
WITHOUT_CAPACITY = {"name": "q", "vhost": "/", "consumers": 0, "messages": 0, "messages_ready": 0,
                    "consumer_details": []}
NOT_COLLECTED_YET = {"name": "q", "vhost": "/", "durable": True, "arguments": {}}  # RabbitMQ, a moment after declare
RABBITMQ = {"name": "q", "messages": 0, "consumer_capacity": 0, "consumer_details": [
    {"consumer_tag": "consumer-1", "active": True}]}


class StubAPI(ManagementAPI):
    """The API with its answers given: each reading the next one (the last repeats)."""

    def __init__(self, *readings: dict) -> None:
        super().__init__("http://stub", "/")
        self.readings, self.asked = list(readings), 0

    def queue(self, name: str) -> dict:
        self.asked += 1
        return self.readings[min(self.asked, len(self.readings)) - 1]


def poll(api: StubAPI, lacks) -> dict:
    verifiers.begin_test()
    return asyncio.run(api.poll("q", lambda reading: False, within=60.0, lacks=lacks))


@pytest.mark.parametrize("reading, lacks, reason", [
    (WITHOUT_ACTIVE, lacks_active_flag, "without an `active` field"),
    (WITHOUT_CAPACITY, lacks_capacity, "no consumer capacity metric"),
], ids=["no-active-field", "no-capacity-metric"])
def test_a_missing_field_is_unsupported_at_the_first_reading(reading, lacks, reason):
    api = StubAPI(reading)
    with pytest.raises(Unsupported, match=reason) as raised:
        poll(api, lacks)
    assert api.asked == 1
    assert "fields " in raised.value.evidence


def test_a_reading_before_the_statistics_decides_nothing():
    api = StubAPI(NOT_COLLECTED_YET, WITHOUT_CAPACITY)
    with pytest.raises(Unsupported):
        poll(api, lacks_capacity)
    assert api.asked == 2


def test_rabbitmqs_readings_lack_nothing():
    assert lacks_capacity(RABBITMQ) is None and lacks_active_flag(RABBITMQ) is None
    assert lacks_capacity({"messages": 0, "consumer_utilisation": None}) is None  # before 3.12, no consumers
    assert lacks_active_flag({"consumer_details": []}) is None  # no consumer listed yet: nothing to tell
    assert capacity(RABBITMQ) == 0.0 and capacity({"consumer_utilisation": 0.5}) == 0.5
