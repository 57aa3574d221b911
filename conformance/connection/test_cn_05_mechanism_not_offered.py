"""CN-05: a start-ok that names a SASL mechanism the broker did not offer ends the
connection before it goes on: no connection.secure or tune, the socket closed.

Source: connection/start-ok/mechanism [validity]; PDF 2.2.4 (before open-ok a fault is a
silent close; a connection.close first is non-strict, convention 2 of the catalogue). A
pause of a few seconds before the close is allowed (PDF 4.10.2; RabbitMQ waits 3 s)."""

from amqp_conformance.fixtures.vocabulary import (HANDSHAKE_ONLY, MUST, SPEC, after_start_ok,
                                                  expect_refused_before_open, plain_response, rule)

RULE = rule("CN-05", "A start-ok with a mechanism the broker did not offer ends the connection",
            strength=MUST, guide=SPEC, section="connection.start-ok",
            source="connection/start-ok/mechanism [validity]; PDF 2.2.4",
            accepts="a silent close after a pause of some seconds; a connection.close first is non-strict")

pytestmark = HANDSHAKE_ONLY

NOT_A_MECHANISM = "AMQPC-NOT-OFFERED"


async def test_start_ok_with_a_mechanism_not_offered_ends_the_connection(broker):
    credentials = plain_response(broker.target.username, broker.target.password)
    ending = await after_start_ok(broker, mechanism=NOT_A_MECHANISM, response=credentials,
                                  offered_check=NOT_A_MECHANISM)
    expect_refused_before_open(ending, "a start-ok naming a mechanism not offered must end the connection")
