"""CH-05: once the broker has closed a channel, the frames the client sends on it before
its close-ok (a publish, an ack, a declare) are discarded: nothing is queued, declared or
answered, and no further exception comes; close-ok ends the close, and the channel number
can be opened again.

Source: `channel/close [stability]` (after sending channel.close, every method but close
and close-ok is discarded). The test holds its close-ok back, so its frames land in the
gap the rule speaks of; the reopened channel's open-ok comes after anything they caused."""

from amqp_conformance.fixtures.vocabulary import (MUST, SPEC, broker_close, check, close_held_channel, contents,
                                                  expect_channel_opens, expect_open, observe, provoke_channel_error,
                                                  queue_exists, rule, send_into_the_gap)

RULE = rule("CH-05", "Frames sent on a channel the broker closed, before close-ok, are discarded",
            strength=MUST, guide=SPEC, section="channel.close", source="channel/close [stability]")


async def test_frames_before_close_ok_are_discarded(broker):
    queue, never_declared = await broker.queue(), broker.name("declared-in-the-gap")
    connection = await broker.connection()
    channel = await close_held_channel(connection)
    provoke_channel_error(channel, broker.name("missing"))
    observe("the broker's close", await broker_close(channel))
    send_into_the_gap(channel, queue, never_declared)
    channel.confirm_close()
    reopened = await expect_channel_opens(connection, "close-ok frees the number: it opens again, and nothing sent into "
                                                      "the gap is answered on it", channel.number)
    observe("frames on the closed channel before it reopened", [str(frame) for frame in channel.after_close])
    check(not channel.after_close, "nothing sent into the gap is answered (no declare-ok, no second close)",
          expected="no frame", actual=[type(frame).__name__ for frame in channel.after_close], timed=False)
    held = await contents(reopened, queue)
    check(held == [], "the publish sent into the gap is not queued", expected=[], actual=held, timed=False)
    check(not await queue_exists(connection, never_declared), "the declare sent into the gap declares nothing",
          expected="404 on a passive declare", actual="the queue exists", timed=False)
    await expect_open(reopened, "close-ok ends the close: the connection lives on and the number reopens")
