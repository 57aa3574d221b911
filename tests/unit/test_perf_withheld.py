"""PerfTest is left out, saying why, where running it would measure nothing (a queue that
cannot be filled in time) or take the broker down (conformance/brokers.toml, hazards)."""

from types import SimpleNamespace

from amqp_conformance.fixtures.vocabulary.broker import BrokerInfo
from amqp_conformance.fixtures.vocabulary.perf import (PERFTEST_FILL_S, perftest_fill_withheld,
                                                       perftest_withheld)


def broker(product: str, version: str) -> SimpleNamespace:
    return SimpleNamespace(info=BrokerInfo(product, version, {}, "managed", None))


def test_a_queue_that_fills_in_time_lets_perftest_run():
    assert perftest_fill_withheld(400_000, 40_000.0) is None
    assert perftest_fill_withheld(int(250 * PERFTEST_FILL_S), 250.0) is None


def test_a_broker_too_slow_to_fill_perftest_queue_is_spared_and_told_why():
    why = perftest_fill_withheld(200_000, 250.0)  # garagemq: about 250 msg/s taken in
    assert why and why.startswith("not run") and "250 msg/s" in why and "800 s" in why


def test_perftest_without_confirms_is_withheld_from_qpid_alone():
    qpid = broker("Apache Qpid Broker-J Core", "10.1.0")
    why = perftest_withheld(qpid, "no confirms")
    assert why and "OutOfMemoryError" in why and "QPID-8168" in why
    assert perftest_withheld(qpid, "asynchronous confirm") is None
    assert perftest_withheld(broker("RabbitMQ", "3.10.8"), "no confirms") is None
