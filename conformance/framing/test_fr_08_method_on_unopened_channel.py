"""FR-08: a method other than channel.open on a channel the client never opened is a
connection exception 504 (channel-error).

Source: the constant channel-error (work on a channel not correctly opened) and the channel
class's grammar (channel.open first). RabbitMQ answers 504. A broker that drops the method
and goes on serving the connection (LavinMQ, seen in its suite) is non-strict. The
invariants after bad input hold."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, expect_connection_exception, frames, raw_connection,
                                                  rule, spec, what_came_back)

RULE = rule("FR-08", "A method on a channel never opened is a connection exception 504",
            strength=MUST, guide=SPEC, section="channel.open", source="constant channel-error; channel grammar",
            accepts="the method dropped and the connection served on is non-strict (LavinMQ: suite)")

METHODS = {"exchange.declare": lambda: frames.barrier_frame(7),
           "basic.qos": lambda: frames.method_frame(spec.Basic.Qos(prefetch_count=1), 300)}


@pytest.mark.parametrize("method", list(METHODS))
async def test_a_method_on_an_unopened_channel_is_refused(broker, bystander, method):
    raw = await raw_connection(broker)
    # The passive declare on channel 1 (open) after it shows a broker that ignored it.
    raw.send(METHODS[method](), frames.barrier_frame(1))
    ending = await what_came_back(raw)
    expect_connection_exception(raw, ending, f"{method} on a channel never opened is a connection exception 504",
                                codes=(504,), ignored="LavinMQ drops such a method (its suite)")
    await bystander.expect_unharmed(ending)
