"""CN-18: a user without rights in a virtual host cannot open it: its login goes through
(tune comes), its connection.open of that virtual host is refused before open-ok.

Source: connection/open/virtual-host [security] (a SHOULD: the server checks the user's
access to the virtual host). Outcomes as CN-17: a silent close passes, and so does a
connection.close whose code the spec gives this fault: 402 (INVALID_PATH, the virtual host
as the client may not use it), 403 (ACCESS_REFUSED: no access due to security settings) or
530 (NOT_ALLOWED, a hard error: the client works with an entity in a manner the server
prohibits "due to security settings", the constant's own words), RabbitMQ's answer;
another close is non-strict. The user is made through the management API (with none,
unsupported, saying so) and deleted afterwards."""

import pytest

from amqp_conformance.fixtures.vocabulary import (HANDSHAKE_ONLY, SHOULD, SPEC, after_open,
                                                  expect_refused_before_open, plain_response, rule, timeouts,
                                                  user_without_rights)

RULE = rule("CN-18", "A user without rights in a virtual host cannot open it", strength=SHOULD, guide=SPEC,
            section="connection.open", source="connection/open/virtual-host [security]",
            accepts="a silent close, or connection.close 402, 403 or 530 (the spec's constant for what security "
                    "settings prohibit; RabbitMQ's answer); another close is non-strict")

# The backstop covers starting the node with the management API (a worker's first such case).
pytestmark = [HANDSHAKE_ONLY, pytest.mark.timeout(timeouts.NODE_BACKSTOP_S)]

INVALID_PATH, ACCESS_REFUSED, NOT_ALLOWED = 402, 403, 530


async def test_a_user_without_rights_cannot_open_the_virtual_host(management):
    async with user_without_rights(management) as (user, password):
        ending = await after_open(management.broker, vhost=management.api.vhost,
                                  response=plain_response(user, password))
    expect_refused_before_open(ending, "connection.open by a user without rights in the virtual host must be refused",
                               strict_codes=(INVALID_PATH, ACCESS_REFUSED, NOT_ALLOWED))
