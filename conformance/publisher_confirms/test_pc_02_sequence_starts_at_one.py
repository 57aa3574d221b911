"""PC-02: in confirm mode, sequence numbers start at 1 with the first confirm.select,
and the delivery tag of the broker's ack is the publish sequence number."""

from amqp_conformance.fixtures.vocabulary import CONFIRMS, MUST, Confirm, check, rule

RULE = rule("PC-02", "Confirm sequence numbers start at 1 and the ack's tag is the publish sequence number",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms", requires=("confirms",),
            accepts=("ack(n) with multiple=true or false: each publish is confirmed before the next, "
                     "so either confirms exactly publish n"))


async def test_each_confirm_carries_the_publish_sequence_number(broker):
    queue = await broker.queue()
    async with broker.channel() as channel:
        await channel.confirm_select()
        # One message at a time, each confirmed before the next: the only tag the
        # broker can send is that message's own sequence number.
        for expected_seq in (1, 2, 3):
            channel.publish(b"m%d" % expected_seq, routing_key=queue)
            confirm = await channel.expect(Confirm, waiting_for=f"the confirm of publish {expected_seq}")
            check(confirm.ack and confirm.delivery_tag == expected_seq,
                  f"publish number {expected_seq} since confirm.select is confirmed with that tag",
                  expected=f"ack({expected_seq})", actual=str(confirm))
