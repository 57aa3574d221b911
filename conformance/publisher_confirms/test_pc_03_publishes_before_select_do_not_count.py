"""PC-03: messages published on a channel before confirm.select, mandatory and
unroutable ones included, do not shift the sequence: the first publish after
confirm.select is still number 1."""

from amqp_conformance.fixtures.vocabulary import CONFIRMS, MUST, Confirm, Returned, check, rule

RULE = rule("PC-03", "Publishes before confirm.select (mandatory ones too) do not shift the sequence",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms", requires=("confirms",))


async def test_first_confirmed_publish_is_number_one(broker):
    queue = await broker.queue()
    nowhere = broker.name("unbound-key")
    async with broker.channel() as channel:
        channel.publish(b"routed before select", routing_key=queue)
        channel.publish(b"mandatory before select", routing_key=queue, mandatory=True)
        channel.publish(b"returned before select", exchange="amq.direct", routing_key=nowhere, mandatory=True)
        await channel.expect(Returned)  # the unroutable mandatory one was handled
        await channel.confirm_select()

        channel.publish(b"first confirmed", routing_key=queue)
        confirm = await channel.expect(Confirm, waiting_for="the confirm of the first publish after select")
    check(confirm.ack and confirm.delivery_tag == 1,
          "the first publish after confirm.select is sequence number 1 whatever came before",
          expected="ack(1)", actual=str(confirm))
