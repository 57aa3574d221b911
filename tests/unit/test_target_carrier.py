"""The broker under test travels as one typed value (fixtures/wire/target.py
TargetBroker), from the command line to the socket: its nodes, where it came from and
its management API. Before it, the option's name ("--amqp-url") was compared as a string
in four vocabulary modules and the management URL read from pytest's options in two."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from amqp_conformance.fixtures.wire.target import BadTargetError, Origin, TargetBroker

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def test_the_carrier_never_shows_a_credential():
    under_test = TargetBroker.given(["amqp://alice:s3cret-pw@h1:5672/v,amqp://alice:s3cret-pw@h2:5672/v"],
                                    "http://admin:mgmt-pw@h1:15672")
    for shown in (repr(under_test), str(under_test), repr(under_test.origin), repr(under_test.nodes)):
        assert "s3cret-pw" not in shown and "mgmt-pw" not in shown, shown
    assert "alice:***@h1" in repr(under_test) and "admin:***@h1:15672" in repr(under_test)
    assert set(under_test.secrets) == {"s3cret-pw", "mgmt-pw"}


def test_the_carrier_says_where_the_broker_came_from():
    given = TargetBroker.given(["amqp://u:p@h/"])
    assert not given.origin.is_managed and str(given.origin) == "--amqp-url" and given.cluster_nodes == ()
    from_env = TargetBroker.given(["amqp://u:p@h/"], given_by="AMQP_URL")
    assert str(from_env.origin) == "AMQP_URL"
    started = TargetBroker.started("rabbitmq-4.0", given.first)
    assert started.origin.is_managed and started.origin.managed == "rabbitmq-4.0"
    assert str(started.origin) == "managed rabbitmq-4.0"
    assert str(Origin(managed="garagemq", label="a second managed garagemq node")) == "a second managed garagemq node"
    cluster = TargetBroker.given(["amqp://u:p@h1/", "amqp://u:p@h2/"])
    assert [n.host for n in cluster.cluster_nodes] == ["h1", "h2"]


def test_the_carrier_crosses_to_workers_whole():
    under_test = TargetBroker.given(["amqps://u:p@h:5671/%2F?verify=verify_none"], "https://a:b@h:15671")
    assert TargetBroker.from_dict(under_test.as_dict()) == under_test


def test_a_management_url_that_is_not_http_is_refused_in_one_line():
    with pytest.raises(BadTargetError, match=r"--management-url 'amqp://a:\*\*\*@h/'"):
        TargetBroker.given(["amqp://u:p@h/"], "amqp://a:secret@h/")


def test_no_module_but_the_session_reads_where_the_broker_came_from_as_text():
    """Decisions ask origin.is_managed / origin.managed and the carrier's management_url."""
    readers = []
    for path in FIXTURES.rglob("*.py"):
        text = path.read_text()
        if path.name == "session.py":
            continue
        if re.search(r'origin\s*==\s*"--amqp-url"|origin\.(startswith|removeprefix)\(|getoption\("management_url"\)', text):
            readers.append(str(path.relative_to(FIXTURES)))
    assert readers == [], readers
