"""PC-13: delivery tags and confirm sequence numbers are 64-bit, up to
9223372036854775807. A run cannot reach that number (it would take that many publishes
on one channel), so the rule itself is reported "not testable", never passed. What a
run can see is recorded beside it: whether the broker reads a client's ack of the
largest tag as that number (RabbitMQ names the tag in its 406 reply)."""

from amqp_conformance.fixtures.vocabulary import CONFIRMS, INFO, observe, observe_answer, rule

RULE = rule("PC-13", "Delivery tags are 64-bit (not testable in a run: reported, never faked)",
            strength=INFO, guide=CONFIRMS, section="consumer-acks-delivery-tags")

LARGEST_TAG = 2**63 - 1


async def test_64_bit_tags_are_reported_not_testable(broker):
    observe("verdict", "not testable: reaching delivery tag 2^63-1 needs that many deliveries or publishes "
                       "on one channel; no run can get there")
    async with broker.channel() as channel:
        channel.ack(LARGEST_TAG)  # never delivered: a 406 that names the tag as the broker read it
        answer = await observe_answer("ack of tag 2^63-1 (never delivered)", channel.barrier(),
                                      lambda _: "the channel stayed open")
    observe("broker echoed the full 64-bit tag", str(LARGEST_TAG) in answer.seen)
