"""FR-06: a method of any class but connection sent on channel 0 is a connection exception.

Source: PDF 4.2.3 (channel 0 carries the connection's methods), PDF 4.2.1. The spec names
no code for it: 503 and 504 both read it, any code is recorded. RabbitMQ answers 504. The
invariants after bad input hold."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, expect_connection_exception, frames, raw_connection,
                                                  rule, spec, what_came_back)

RULE = rule("FR-06", "A non-connection method on channel 0 is a connection exception",
            strength=MUST, guide=SPEC, section="constants", source="PDF 4.2.3; PDF 4.2.1",
            accepts="any code (503 or 504 expected), recorded; a socket closed without a code is recorded too")

METHODS = {"queue.declare": spec.Queue.Declare(queue="", exclusive=True, auto_delete=True),
           "channel.open": spec.Channel.Open()}


@pytest.mark.parametrize("method", list(METHODS))
async def test_a_channel_method_on_channel_zero_is_refused(broker, bystander, method):
    raw = await raw_connection(broker)
    raw.send(frames.method_frame(METHODS[method], 0))
    ending = await what_came_back(raw)
    expect_connection_exception(raw, ending, f"{method} on channel 0 is a connection exception")
    await bystander.expect_unharmed(ending)
