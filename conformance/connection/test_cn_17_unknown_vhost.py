"""CN-17: connection.open of a virtual host the broker does not have is refused before
open-ok.

Source: the constant invalid-path (402); PDF 2.2.4. Before open-ok a refusal is a silent
close; connection.close 402 INVALID_PATH names this very fault and is accepted strictly.
A close with another code is non-strict (convention 2 of the catalogue), never a fail.
RabbitMQ 4.0.5 answers connection.close 530 NOT_ALLOWED "vhost ... not found": the first
check of its connection.open, the virtual host's connection limit, finds no such host and
refuses with not_allowed (rabbit_reader.erl is_over_vhost_connection_limit/2, v4.0.5 line
1392). No deviation of D1..D30 documents it: the reason names that source."""

from amqp_conformance.fixtures.vocabulary import (HANDSHAKE_ONLY, MUST, SPEC, after_open,
                                                  expect_refused_before_open, rule)

RULE = rule("CN-17", "connection.open of an unknown virtual host is refused before open-ok", strength=MUST,
            guide=SPEC, section="connection.open", source="PDF 2.2.4",
            accepts="a silent close or connection.close 402; another close is non-strict (RabbitMQ: 530 from "
                    "rabbit_reader.erl is_over_vhost_connection_limit/2, no D entry)")

pytestmark = HANDSHAKE_ONLY

INVALID_PATH = 402


async def test_unknown_virtual_host_is_refused(broker):
    ending = await after_open(broker, vhost=broker.name("no-such-vhost"))
    expect_refused_before_open(ending, "connection.open of an unknown virtual host must be refused",
                               strict_codes=(INVALID_PATH,),
                               documented="the spec's code for an unknown virtual host is 402 INVALID_PATH; RabbitMQ "
                                          "sends 530 from rabbit_reader.erl is_over_vhost_connection_limit/2, "
                                          "which no D entry documents")
