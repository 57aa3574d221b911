"""FR-04: a heartbeat frame on a channel other than 0 is a connection exception.

Source: PDF 4.2.3 names 503 (command-invalid) for it, PDF 4.2.7 501 (frame-error); ERRATA 22.
Both codes pass. RabbitMQ answers 505 (unexpected-frame; seen in its source and in the
RabbitMQ and LavinMQ suites): non-strict. A heartbeat on channel 0 with a payload is a
second case, recorded only (ERRATA 22 leaves it open). The invariants after bad input hold."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, answer_to, expect_connection_exception, frames, observe,
                                                  raw_connection, rule, what_came_back)

RULE = rule("FR-04", "A heartbeat on a channel other than 0 is a connection exception",
            strength=MUST, guide=SPEC, section="constants", source="PDF 4.2.3; PDF 4.2.7; ERRATA 22",
            accepts="501 or 503; 505 (RabbitMQ, LavinMQ: source, suite) non-strict; a heartbeat with a "
                    "payload on channel 0: any answer, recorded")


@pytest.mark.case("channel-1")
async def test_a_heartbeat_on_channel_one_is_a_connection_exception(broker, bystander):
    raw = await raw_connection(broker)
    raw.send(frames.frame(frames.HEARTBEAT, 1, b""))
    ending = await what_came_back(raw)
    expect_connection_exception(raw, ending, "a heartbeat on channel 1 is a connection exception", codes=(501, 503),
                                tolerated={505: "RabbitMQ's and LavinMQ's unexpected-frame (source, suite)"})
    await bystander.expect_unharmed(ending)


@pytest.mark.case("payload")
async def test_a_heartbeat_with_a_payload_is_recorded(broker, bystander):
    raw = await raw_connection(broker)
    # The passive declare after it shows whether the broker went on reading past it.
    raw.send(frames.frame(frames.HEARTBEAT, 0, b"payload"), frames.barrier_frame(1))
    ending = await answer_to(raw)
    observe("a heartbeat with a payload (ERRATA 22)", str(ending))
    await bystander.expect_unharmed(ending)
