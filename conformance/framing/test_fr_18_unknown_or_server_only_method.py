"""FR-18: a method the client may not send is a connection exception: an unknown class or
method id, or a method only the server sends (basic.deliver, basic.get-ok, connection.start).

Source: PDF 2.3.6 and the constant command-invalid (503). The code is recorded, not
judged (503 expected, 540 not-implemented tolerated for an unknown method); a socket
closed without connection.close (RabbitMQ for an unknown id: its reader process ends) is
recorded too. The invariants after bad input hold."""

import struct

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, RAW_INPUT, SPEC, expect_connection_exception, frames,
                                                  raw_connection, rule, spec, what_came_back)

RULE = rule("FR-18", "An unknown or server-only method from the client is a connection exception",
            strength=MUST, guide=SPEC, section="constants", source="PDF 2.3.6; constant command-invalid",
            accepts="any code (503 expected, 540 for an unknown method), or none, recorded")

SENT = {
    "unknown-class": lambda: [frames.frame(frames.METHOD, 1, struct.pack(">HH", 999, 10))],
    "unknown-method": lambda: [frames.frame(frames.METHOD, 1, struct.pack(">HH", 60, 999))],
    # Content methods: the header (an empty body) follows, as a server would send it.
    "basic.deliver": lambda: [frames.method_frame(spec.Basic.Deliver(consumer_tag="c", delivery_tag=1, exchange="",
                                                                     routing_key="q"), 1), frames.header_frame(1, 0)],
    "basic.get-ok": lambda: [frames.method_frame(spec.Basic.GetOk(delivery_tag=1, exchange="", routing_key="q",
                                                                  message_count=0), 1), frames.header_frame(1, 0)],
    "connection.start": lambda: [frames.method_frame(spec.Connection.Start(), 0)],
}


@RAW_INPUT
@pytest.mark.parametrize("method", list(SENT))
async def test_a_method_the_client_may_not_send_is_refused(broker, bystander, method):
    raw = await raw_connection(broker)
    raw.send(*SENT[method](), frames.barrier_frame(1))
    ending = await what_came_back(raw)
    expect_connection_exception(raw, ending, f"{method} from the client is a connection exception")
    await bystander.expect_unharmed(ending)
