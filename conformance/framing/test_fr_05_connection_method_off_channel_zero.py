"""FR-05: a method of the connection class sent on a channel other than 0 is a connection
exception 503 (command-invalid).

Source: PDF 4.2.3 (connection methods travel on channel 0 only). RabbitMQ answers 503.
The invariants after bad input hold."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, expect_connection_exception, frames, raw_connection,
                                                  rule, spec, what_came_back)

RULE = rule("FR-05", "A connection-class method on a channel other than 0 is a connection exception 503",
            strength=MUST, guide=SPEC, section="constants", source="PDF 4.2.3")

METHODS = {"tune-ok": spec.Connection.TuneOk(channel_max=0, frame_max=131072, heartbeat=0),
           "open": spec.Connection.Open(virtual_host="/")}


@pytest.mark.parametrize("method", list(METHODS))
async def test_a_connection_method_on_channel_one_is_refused(broker, bystander, method):
    raw = await raw_connection(broker)
    raw.send(frames.method_frame(METHODS[method], 1))
    ending = await what_came_back(raw)
    expect_connection_exception(raw, ending, f"connection.{method} on channel 1 is a connection exception 503",
                                codes=(503,))
    await bystander.expect_unharmed(ending)
