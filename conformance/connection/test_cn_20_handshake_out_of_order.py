"""CN-20: a handshake method out of order or repeated ends the connection: channel.open
before connection.open, a second start-ok, a second tune-ok, a second connection.open.

Source: PDF 2.2.4 and the connection class grammar. Before open-ok the end is a silent
close (a connection.close first is non-strict, convention 2 of the catalogue; no D entry
covers RabbitMQ's: 4.0.5 sends 505 UNEXPECTED_FRAME for a frame on a channel before the
connection is open, rabbit_reader.erl handle_frame/4, v4.0.5 lines 1027-1029, and 504
CHANNEL_ERROR for a connection method in the wrong state, handle_method0/2, lines
1352-1354); after open-ok it is a connection exception, whose code is recorded only (503
COMMAND_INVALID is what the spec suggests; RabbitMQ sends 504). After the faulty step the
client goes on with the handshake as if nothing happened: a broker that ignored the fault
would answer open-ok, which fails the case."""

import pytest

from amqp_conformance.fixtures.vocabulary import (HANDSHAKE_ONLY, MUST, SPEC, expect_exception_after_open,
                                                  expect_refused_before_open, repeated_handshake_step, rule)

RULE = rule("CN-20", "A handshake method out of order or repeated ends the connection", strength=MUST, guide=SPEC,
            section="connection.open", source="PDF 2.2.4",
            accepts="before open-ok a silent close, a connection.close first non-strict; after open-ok any "
                    "connection.close code (recorded)")

pytestmark = HANDSHAKE_ONLY

BEFORE_OPEN_OK = ("channel-open-before-open", "start-ok-twice", "tune-ok-twice")
# Where RabbitMQ's close before open-ok comes from (no D entry documents it).
RABBITMQ_BEFORE_OPEN_OK = ("RabbitMQ's codes come from rabbit_reader.erl (handle_frame/4: 505 for a channel frame "
                           "before the connection runs; handle_method0/2: 504 for a method in the wrong state), "
                           "which no D entry documents")


@pytest.mark.case("before-open-ok")
@pytest.mark.parametrize("step", BEFORE_OPEN_OK)
async def test_a_step_out_of_order_before_open_ok_ends_the_connection(broker, step):
    ending = await repeated_handshake_step(broker, step)
    expect_refused_before_open(ending, f"{step.replace('-', ' ')} must end the connection before open-ok",
                               documented=RABBITMQ_BEFORE_OPEN_OK)


@pytest.mark.case("open-twice")
async def test_connection_open_twice_is_a_connection_exception(broker):
    ending = await repeated_handshake_step(broker, "open-twice")
    expect_exception_after_open(ending, "connection.open after open-ok must be a connection exception")
