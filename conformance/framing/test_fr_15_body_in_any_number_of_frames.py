"""FR-15: a body cut into any number of body frames, each of 1 to frame-max − 8 octets, is
put back together exactly; a body of size 0 needs no body frame at all.

Source: PDF 4.2.6.1 and 4.2.6.2. Zero-length body frames inside a content are not defined
either way: what the broker does with them is recorded (Qpid Broker-J may cap their count,
506), never judged. The invariants after any input hold."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MUST, SMALL_FRAME_MAX, SPEC, answer_to, check,
                                                  expect_connection_serves, frames, observe, raw_connection, rule)

RULE = rule("FR-15", "A body in any number of body frames is reassembled exactly; size 0 needs no body frame",
            strength=MUST, guide=SPEC, section="basic.publish", source="PDF 4.2.6.1; PDF 4.2.6.2",
            accepts="zero-length body frames inside a content: any answer, recorded")


def _split(size: int, name: str, frame_max: int) -> list[int]:
    largest = frame_max - 8
    return {"one-octet-frames": [1] * size, "largest-frames": [largest] * (size // largest) + [size % largest],
            "uneven": [1, 7, largest, 2, largest, size - 2 * largest - 10]}[name]


@pytest.mark.case("reassembled")
@pytest.mark.parametrize("split", ["one-octet-frames", "largest-frames", "uneven"])
async def test_a_body_in_many_frames_is_reassembled(broker, bystander, split):
    queue = await broker.queue()
    raw = await raw_connection(broker, frame_max=SMALL_FRAME_MAX)
    size = 40 if split == "one-octet-frames" else 3 * (raw.frame_max - 8) + 5
    body = bytes(i % 251 for i in range(size))
    pieces = _split(size, split, raw.frame_max)
    raw.send(*frames.publish_frames(1, queue, body, pieces=pieces), frames.barrier_frame(1))
    ending = await answer_to(raw)
    expect_connection_serves(ending, f"a body in {len(pieces)} frames is no error")
    stored = await broker.take_all(queue, expected=1)
    check([d.body for d in stored] == [body], "the body is reassembled octet for octet",
          expected=f"one message of {size} octets", actual=[len(d.body) for d in stored], timed=False)
    await bystander.expect_unharmed(ending)


@pytest.mark.case("empty-body")
async def test_an_empty_body_needs_no_body_frame(broker, bystander):
    queue = await broker.queue()
    raw = await raw_connection(broker)
    raw.send(*frames.publish_frames(1, queue, b""), frames.barrier_frame(1))
    ending = await answer_to(raw)
    expect_connection_serves(ending, "a content of size 0 with no body frame is complete")
    stored = await broker.take_all(queue, expected=1)
    check([d.body for d in stored] == [b""], "the empty message is stored", expected=[b""],
          actual=[d.body for d in stored], timed=False)
    await bystander.expect_unharmed(ending)


@pytest.mark.case("zero-length-frames")
async def test_zero_length_body_frames_are_recorded(broker, bystander):
    queue = await broker.queue()
    raw = await raw_connection(broker)
    raw.send(*frames.publish_frames(1, queue, b"abcdef", pieces=[0, 3, 0, 3]), frames.barrier_frame(1))
    ending = await answer_to(raw)
    observe("zero-length body frames inside a content", str(ending))
    if not ending.ended:
        stored = await broker.take_all(queue, expected=1)
        observe("stored", [d.body for d in stored])
    await bystander.expect_unharmed(ending)
