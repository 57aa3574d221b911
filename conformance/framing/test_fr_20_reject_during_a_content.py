"""FR-20: a basic.reject sent while a delivery's body frames are still arriving may make
the broker cut that content short (the spec allows it: the server may stop sending the
rest); recorded only.

Source: `basic/reject [01]`. RabbitMQ documents that it always sends a content whole (D14).
What arrives after the reject (the whole body, or less) is recorded. The invariants hold."""

from amqp_conformance.fixtures.vocabulary import (INFO, SMALL_FRAME_MAX, SPEC, answer_to, frames, observe, raw_connection,
                                                  rule, spec)

RULE = rule("FR-20", "A reject during a delivery's body frames may cut the content short (recorded)",
            strength=INFO, guide=SPEC, section="basic.reject", source="basic/reject [01]",
            accepts="the content whole or cut short, recorded (RabbitMQ sends it whole, D14)")

BODY = 8 * SMALL_FRAME_MAX  # 64 KiB in 8 body frames: a reject lands mid-content


async def test_a_reject_during_the_body_frames_is_recorded(broker, bystander):
    queue = await broker.queue(messages=[b"x" * BODY])
    raw = await raw_connection(broker, frame_max=SMALL_FRAME_MAX)
    raw.send(frames.method_frame(spec.Basic.Consume(queue=queue, consumer_tag="fr-20"), 1))
    # consume-ok, basic.deliver, its header and a first body frame
    first = await answer_to(raw, frames=4)
    # Not requeued: the body octets that follow are the rejected delivery's own.
    raw.send(frames.method_frame(spec.Basic.Reject(delivery_tag=1, requeue=False), 1), frames.barrier_frame(1))
    ending = await answer_to(raw, until="Exchange.DeclareOk")
    bodies = [payload for kind, _, payload in raw.received if kind == frames.BODY]
    observe("body octets delivered after consume (announced, arrived)", f"{BODY}, {sum(map(len, bodies))}")
    observe("the content", "whole" if sum(map(len, bodies)) == BODY else "cut short")
    await bystander.expect_unharmed(ending)
