"""CN-06: a login with wrong credentials ends the connection before it opens: no tune,
no open-ok, the socket closed.

Source: PDF 2.2.4 (before open-ok a fault is a silent close; a connection.close first is
non-strict, convention 2). RabbitMQ documents that a client advertising the
`authentication_failure_close` capability gets connection.close 403 ACCESS_REFUSED first
(D27): for such a client that close is what the rule accepts, strictly. The control: the
same user with the right password reaches tune, so the refusal is the password's."""

import pytest

from amqp_conformance.fixtures.vocabulary import (HANDSHAKE_ONLY, MUST, SPEC, after_start_ok,
                                                  expect_refused_before_open, logs_in, plain_response, rule)

RULE = rule("CN-06", "Wrong credentials end the connection before open-ok", strength=MUST, guide=SPEC,
            section="connection.start-ok", source="PDF 2.2.4",
            accepts="a silent close; with the authentication_failure_close capability, connection.close 403 "
                    "(RabbitMQ documents it, D27); another close first is non-strict")

pytestmark = HANDSHAKE_ONLY

ACCESS_REFUSED = 403
CLIENTS = {"plain-client": {}, "authentication-failure-close": {"authentication_failure_close": True}}


@pytest.mark.parametrize("capabilities", CLIENTS.values(), ids=CLIENTS.keys())
async def test_wrong_password_ends_the_connection(broker, capabilities):
    await logs_in(broker)
    wrong = plain_response(broker.target.username, broker.target.password + "-wrong")
    ending = await after_start_ok(broker, response=wrong, capabilities=capabilities)
    expect_refused_before_open(ending, "a login with a wrong password must end the connection",
                               strict_codes=(ACCESS_REFUSED,) if capabilities else (),
                               documented="RabbitMQ sends 403 only to clients with authentication_failure_close (D27)")
