"""Names the suite creates are unique per test id, even when ids differ only at the end."""

from amqp_conformance.fixtures.vocabulary.broker import Broker, BrokerInfo

INFO = BrokerInfo("RabbitMQ", "3.10.8", {}, "test", None)


def names_for(test_name: str) -> str:
    return Broker(None, INFO, test_name, "run1").name("q")


def test_parametrized_ids_that_differ_only_at_the_end_get_different_names():
    long_name = "test_consumer_past_the_timeout_loses_its_channel_and_deliveries_return"
    assert names_for(long_name + "[classic]") != names_for(long_name + "[quorum]")


def test_names_carry_the_run_and_stay_within_amqp_limits():
    name = names_for("test_x" * 50)
    assert name.startswith("amqpc-run1-") and len(name) < 128
