"""FR-14: frames of other channels may come between the frames of a content: the broker
goes on with both channels, and the message arrives intact.

Source: PDF 4.2.6 (content frames of one channel are in order; channels are independent).
The test interleaves a passive declare on channel 2 between the header and each body frame
of a publish on channel 1; every declare is answered, the connection stays open, and the
queue holds the body octet for octet. The invariants after any input hold."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, answer_to, check, expect_connection_serves, frames,
                                                  raw_connection, rule)

RULE = rule("FR-14", "Other channels' frames between a content's frames are accepted; the message is intact",
            strength=MUST, guide=SPEC, section="basic.publish", source="PDF 4.2.6")


async def test_frames_of_another_channel_inside_a_content(broker, bystander):
    queue = await broker.queue()
    raw = await raw_connection(broker, channels=2)
    publish, header, first, second = frames.publish_frames(1, queue, b"abcdef", pieces=[3, 3])
    raw.send(publish, header, frames.barrier_frame(2), first, frames.barrier_frame(2), second, frames.barrier_frame(1))
    ending = await answer_to(raw, frames=3)
    expect_connection_serves(ending, "frames of channel 2 inside a content of channel 1 are no error")
    check(len(ending.frames) == 3, "each channel's methods are answered", expected="3 declare-ok",
          actual=str(ending))
    stored = await broker.take_all(queue, expected=1)
    check([d.body for d in stored] == [b"abcdef"], "the interleaved content is stored intact",
          expected=[b"abcdef"], actual=[d.body for d in stored], timed=False)
    await bystander.expect_unharmed(ending)
