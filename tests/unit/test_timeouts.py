"""amqp_conformance.fixtures.core.timeouts: one frozen set of bounds, changed only through configure()."""

import pytest

from amqp_conformance.fixtures.core import timeouts


def test_a_bound_is_changed_only_through_configure():
    before = timeouts.current()
    try:
        with pytest.raises(AttributeError, match="configure"):
            timeouts.REPLY = 99.0
        assert timeouts.REPLY == before.REPLY
        timeouts.configure(REPLY=7.5)
        assert timeouts.REPLY == 7.5 and timeouts.current().REPLY == 7.5
        assert timeouts.NEGATIVE_WINDOW == before.NEGATIVE_WINDOW
    finally:
        timeouts.configure(**{field: getattr(before, field) for field in before.__dataclass_fields__})
    assert timeouts.current() == before


def test_an_unknown_bound_is_refused():
    with pytest.raises(TypeError):
        timeouts.configure(REPLY_TIMEOUT=1.0)
    with pytest.raises(AttributeError):
        timeouts.NO_SUCH_BOUND


def test_a_url_brokers_consumer_timeout_check_covers_rabbitmqs_default_tick():
    """The cheap half of tests/integration/test_consumer_timeout_at_url.py's first test
    (which waits the tick out, in ci/mutation): at a URL, with no option given, CON-10 waits
    at least RabbitMQ's default channel tick past the timeout."""
    from amqp_conformance.fixtures.plugin.session import DEFAULT_TIMEOUT_CHECK_MS
    from tests.integration.test_consumer_timeout_at_url import RABBITMQ_DEFAULT_CHANNEL_TICK_MS

    assert DEFAULT_TIMEOUT_CHECK_MS >= RABBITMQ_DEFAULT_CHANNEL_TICK_MS
