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
