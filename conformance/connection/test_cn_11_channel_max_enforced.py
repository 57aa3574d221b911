"""CN-11: with channel-max N agreed, channels 1..N open, and channel.open on a number above
N is a connection exception, also when it is the connection's only channel.

Source: connection/tune channel-max doc ("usable channel numbers are 1..channel-max");
PDF 4.3. The scope (connection) is the rule's; the code is recorded only (RabbitMQ
documents 530 NOT_ALLOWED). RabbitMQ counts channels rather than checking their numbers
(D19: "reaching channel_max is a connection error"): a number above N opened while fewer
than N are open is non-strict naming D19, never a fail. The client agrees N = 3 (a client
may ask less than the broker proposes)."""

import pytest

from amqp_conformance.fixtures.vocabulary import (HANDSHAKE_ONLY, MUST, SPEC, by_hand, check,
                                                  expect_exception_after_open, non_strict, open_channel_by_hand,
                                                  opened_channel, opened_with_channel_max, rule)

RULE = rule("CN-11", "Channel numbers above the agreed channel-max are a connection exception", strength=MUST,
            guide=SPEC, section="connection.tune", source="PDF 4.3",
            accepts="any connection.close code (recorded); a number above channel-max accepted while fewer "
                    "channels are open is non-strict (RabbitMQ counts channels, D19)")

pytestmark = HANDSHAKE_ONLY

CHANNEL_MAX = 3
REQUIREMENT = "channel.open on a number above the agreed channel-max must be a connection exception"


@pytest.mark.case("after-n-channels")
async def test_a_channel_beyond_channel_max_is_refused(broker):
    async with by_hand(broker) as connection:
        limit = await opened_with_channel_max(connection, CHANNEL_MAX)
        for number in range(1, limit + 1):
            ending = await open_channel_by_hand(connection, number)
            check(opened_channel(ending), f"channel {number} of {limit} must open", expected="channel.open-ok",
                  actual=str(ending), timed=ending.proceeded is None)
        expect_exception_after_open(await open_channel_by_hand(connection, limit + 1), REQUIREMENT)


@pytest.mark.case("number-above-the-limit")
async def test_a_channel_number_above_channel_max_is_refused_alone(broker):
    async with by_hand(broker) as connection:
        limit = await opened_with_channel_max(connection, CHANNEL_MAX)
        ending = await open_channel_by_hand(connection, limit + 1)
    if opened_channel(ending):
        non_strict(f"{REQUIREMENT}; channel {limit + 1} opened as the only channel (RabbitMQ counts channels "
                   "instead of checking their numbers, D19)", expected="a connection exception", actual=str(ending))
        return
    expect_exception_after_open(ending, REQUIREMENT)
