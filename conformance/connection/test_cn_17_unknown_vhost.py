"""CN-17: connection.open of a virtual host the broker does not have is refused before
open-ok.

Source: the constant invalid-path (402); PDF 2.2.4. Before open-ok a refusal is a silent
close; connection.close 402 INVALID_PATH names this very fault and is accepted strictly.
RabbitMQ answers connection.close 530 NOT_ALLOWED "vhost ... not found": a close with a
code other than 402 is non-strict (convention 2 of the catalogue), never a fail."""

from amqp_conformance.fixtures.vocabulary import (HANDSHAKE_ONLY, MUST, SPEC, after_open,
                                                  expect_refused_before_open, rule)

RULE = rule("CN-17", "connection.open of an unknown virtual host is refused before open-ok", strength=MUST,
            guide=SPEC, section="connection.open", source="PDF 2.2.4",
            accepts="a silent close or connection.close 402; another close (RabbitMQ: 530) is non-strict")

pytestmark = HANDSHAKE_ONLY

INVALID_PATH = 402


async def test_unknown_virtual_host_is_refused(broker):
    ending = await after_open(broker, vhost=broker.name("no-such-vhost"))
    expect_refused_before_open(ending, "connection.open of an unknown virtual host must be refused",
                               strict_codes=(INVALID_PATH,),
                               documented="RabbitMQ refuses with 530 NOT_ALLOWED, the spec's code is 402")
