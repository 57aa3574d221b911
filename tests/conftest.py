"""Fixtures the project tests share."""

import pytest

from amqp_conformance.fixtures.brokers.managed import RabbitMQNode


@pytest.fixture(scope="module")
def plain_rabbitmq():
    """One managed RabbitMQ node with the suite's defaults, for a module's wire dialogues."""
    node = RabbitMQNode()
    with node:  # ManagedBroker's own life cycle: start() on entry, cleanup() on exit
        yield node
