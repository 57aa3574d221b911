"""FR-03: a frame larger than the frame-max both peers agreed is answered with a connection
exception 501 (frame-error) at once, from its size field alone: the broker does not wait
for, nor buffer, the payload the size field announces.

Source: PDF 4.2.3 (frames above frame-max are a 501), PDF 2.3.3 (frame-max is what the
peer may receive). The test sends only the 7-octet frame header with the size field and
never the payload, so a broker that waits for the payload (or allocates it) is silent.
RabbitMQ lets 8 octets past frame-max through (its source and tests): the verdict starts at
frame-max + 9, and a whole frame 1 to 8 octets over frame-max is a case of its own whose
answer is recorded, never judged (INFO). The invariants after bad input hold, the managed
node's memory among them: announcing 4 GB must not cost 4 GB."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, RAW_INPUT, SMALL_FRAME_MAX, SPEC, answer_to,
                                                  expect_connection_exception, frames, observe, raw_connection, rule,
                                                  what_came_back)

RULE = rule("FR-03", "A frame above frame-max is a connection exception 501, without the payload buffered",
            strength=MUST, guide=SPEC, section="connection.tune", source="PDF 4.2.3; PDF 2.3.3",
            accepts="a frame 1 to 8 octets over frame-max: any answer, recorded (RabbitMQ's slack, source and suite)")

SIZES = {"frame-max+9": lambda frame_max: frame_max + 9, "16-MB": lambda _: 1 << 24,
         "4-GB": lambda _: (1 << 32) - 1}


@RAW_INPUT
@pytest.mark.parametrize("size", list(SIZES))
async def test_an_oversized_frame_is_refused_from_its_header(broker, bystander, size):
    raw = await raw_connection(broker)
    announced = SIZES[size](raw.frame_max)
    raw.send(frames.FRAME_HEADER.pack(frames.METHOD, 1, announced))
    ending = await what_came_back(raw)
    expect_connection_exception(raw, ending, f"a frame announcing {announced} octets (frame-max {raw.frame_max}) "
                                "is refused with 501 before its payload arrives", codes=(501,))
    await bystander.expect_unharmed(ending)


@pytest.mark.parametrize("over", [1, 8], ids=["slack-1", "slack-8"])
async def test_a_frame_just_over_frame_max_is_recorded(broker, bystander, over):
    queue = await broker.queue()
    raw = await raw_connection(broker, frame_max=SMALL_FRAME_MAX)
    # A body frame of frame-max + `over` octets in all (7-octet header, payload, end octet).
    body = bytes(raw.frame_max - 8 + over)
    raw.send(*frames.publish_frames(1, queue, body), frames.barrier_frame(1))
    ending = await answer_to(raw)
    observe(f"a frame {over} octet(s) over frame-max {raw.frame_max}", "accepted, the connection goes on"
            if not ending.ended else str(ending))
    if not ending.ended:
        observe("stored", [len(d.body) for d in await broker.take_all(queue, expected=1)])
    await bystander.expect_unharmed(ending)
