"""FR-16: the broker sends no frame larger than the frame-max both peers agreed: a body
twice frame-max long arrives in several body frames, none above frame-max.

Source: PDF 4.2.3. RabbitMQ documents that it does not apply frame-max to method and
header frames (D20): those are recorded, only body frames are judged. The invariants hold."""

from amqp_conformance.fixtures.vocabulary import (MUST, SMALL_FRAME_MAX, SPEC, check, connection_with_frame_max, observe,
                                                  rule)

RULE = rule("FR-16", "The broker sends no body frame above the agreed frame-max",
            strength=MUST, guide=SPEC, section="connection.tune", source="PDF 4.2.3",
            accepts="method and header frames above frame-max are recorded, not judged (D20)")


async def test_a_long_body_arrives_in_frames_within_frame_max(broker, bystander):
    body = bytes(i % 253 for i in range(2 * SMALL_FRAME_MAX + 100))
    queue = await broker.queue(messages=[body])
    connection = await connection_with_frame_max(broker, SMALL_FRAME_MAX)
    channel = await connection.channel()
    delivery = await channel.get(queue, no_ack=True)
    check(delivery is not None and delivery.body == body, "the long body arrives whole",
          expected=f"{len(body)} octets", actual=len(delivery.body) if delivery else "get-empty", timed=False)
    sizes = {kind: [len(data) for _, channel_number, data in connection.received if data and data[0] == kind]
             for kind in (1, 2, 3)}
    observe("frame sizes received (method, header, body)", {k: max(v, default=0) for k, v in sizes.items()})
    check(len(sizes[3]) >= 3 and max(sizes[3]) <= connection.frame_max, "every body frame fits frame-max",
          expected=f"3 or more body frames of at most {connection.frame_max} octets", actual=sizes[3], timed=False)
    await bystander.expect_unharmed(None)
