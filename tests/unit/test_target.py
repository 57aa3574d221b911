"""Broker URL parsing and credential masking."""

import pytest

from amqp_conformance.fixtures.wire.target import (BadTargetError, BrokerTarget, mask_secrets, mask_url,
                                                   targets_from_urls)


@pytest.mark.parametrize("url, expected", [
    ("amqp://localhost", ("localhost", 5672, "/", "guest", "guest", False)),
    ("amqps://u:p@h", ("h", 5671, "/", "u", "p", True)),
    ("amqp://u:p@h:1234/", ("h", 1234, "/", "u", "p", False)),
    ("amqp://u:p@h/vh", ("h", 5672, "vh", "u", "p", False)),
    ("amqp://u:p@h/%2F", ("h", 5672, "/", "u", "p", False)),
    ("amqp://us%40er:p%3Ass@h/a%2Fb", ("h", 5672, "a/b", "us@er", "p:ss", False)),
])
def test_urls_parse_as_the_rabbitmq_uri_spec_says(url, expected):
    t = BrokerTarget.from_url(url)
    assert (t.host, t.port, t.vhost, t.username, t.password, t.tls) == expected


@pytest.mark.parametrize("url", ["http://h", "localhost:5672", "amqp://", "amqp://h:notaport", "amqp://h/a/b", ""])
def test_malformed_urls_are_refused_with_a_safe_message(url):
    with pytest.raises(BadTargetError, match="malformed broker URL"):
        BrokerTarget.from_url(url)


def test_a_malformed_url_message_never_shows_the_password():
    with pytest.raises(BadTargetError) as refused:
        BrokerTarget.from_url("amqp://user:s3cret@host:99999999/")
    assert "s3cret" not in str(refused.value)


def test_safe_url_masks_the_password_and_url_keeps_it():
    t = BrokerTarget.from_url("amqp://user:s3cret@host/vh")
    assert t.safe_url == "amqp://user:***@host:5672/vh"
    assert "s3cret" not in repr(t) and "s3cret" in t.url


@pytest.mark.parametrize("text, masked", [
    ("amqp://a:b@h/", "amqp://a:***@h/"),
    ("amqps://a:b:c@h", "amqps://a:***@h"),
    ("amqp://h/", "amqp://h/"),
    ("no url here", "no url here"),
])
def test_mask_url(text, masked):
    assert mask_url(text) == masked


def test_through_another_address_keeps_credentials_and_vhost():
    t = BrokerTarget.from_url("amqp://u:p@h:1/v").with_address("127.0.0.1", 2)
    assert (t.host, t.port, t.vhost, t.username, t.password) == ("127.0.0.1", 2, "v", "u", "p")


@pytest.mark.parametrize("text, masked", [
    # a broker log line: a URL earlier, a node name "…@localhost" later; only the URL's password goes
    ("target amqp://conformance:Zx9@127.0.0.1:5672/v\n2026-11-22 23:41:07.512 [info] <0.9.0> node "
     "amqpc-81-3fa2@localhost up",
     "target amqp://conformance:***@127.0.0.1:5672/v\n2026-11-22 23:41:07.512 [info] <0.9.0> node "
     "amqpc-81-3fa2@localhost up"),
    ("2026-11-22 23:41:07 rabbit@localhost: http://host:15672/api/x@y", "2026-11-22 23:41:07 rabbit@localhost: "
     "http://host:15672/api/x@y"),
    ("two: amqp://a:p1@h1/ and amqps://b:p@2@h2:5671", "two: amqp://a:***@h1/ and amqps://b:***@h2:5671"),
])
def test_mask_url_touches_only_the_password_of_each_url(text, masked):
    assert mask_url(text) == masked


def test_secrets_are_masked_and_nothing_else():
    log = "2026-11-22 23:41:07 user 'guest' authenticated; password s3cr3t-Zq; amqpc-1@localhost"
    assert mask_secrets(log, ["s3cr3t-Zq"], keep=("guest",)) == log.replace("s3cr3t-Zq", "***")
    # a password equal to the user name (guest/guest) would rewrite every mention of the user
    assert mask_secrets(log, ["guest"], keep=("guest",)) == log


@pytest.mark.parametrize("values", [
    ["amqp://u:p@h1:1/v,amqp://u:p@h2:2/v,amqps://u:p@h3:3/v"],  # comma-separated
    ["amqp://u:p@h1:1/v", "amqp://u:p@h2:2/v , amqps://u:p@h3:3/v"],  # repeated, and mixed
])
def test_a_list_of_node_urls_keeps_its_order(values):
    assert [(t.host, t.port, t.tls) for t in targets_from_urls(values)] == [("h1", 1, False), ("h2", 2, False),
                                                                             ("h3", 3, True)]


def test_a_comma_inside_one_url_does_not_split_it():
    (only,) = targets_from_urls(["amqp://u:pa,ss@h:1/"])
    assert only.password == "pa,ss"


@pytest.mark.parametrize("values, message", [
    (["amqp://h1,"], "an empty element"),
    (["amqp://h1,foo"], "each URL with its scheme"),
    (["amqp://h1,http://h2"], "scheme must be amqp:// or amqps://"),
    (["amqp://u:secret@h1:1/", "amqp://u:secret@h1:1/"], "twice"),
])
def test_a_bad_list_of_urls_is_one_clear_error(values, message):
    with pytest.raises(BadTargetError, match=message) as raised:
        targets_from_urls(values)
    assert "secret" not in str(raised.value)
