"""CON-08 (INFO): what basic.get does on a quorum queue with single active consumer.
RabbitMQ refuses it, closing the channel with 405 RESOURCE_LOCKED; the report records
the reply seen (scope, code, text) or the answer given instead. No guide sentence says
it (RabbitMQ's source does): it is recorded beside CON-06, as a basic.get would hand a
message to someone other than the one active consumer."""

from amqp_conformance.fixtures.vocabulary import CONSUMERS, INFO, SINGLE_ACTIVE, observe_answer, rule

RULE = rule("CON-08", "basic.get on a quorum queue with single active consumer",
            strength=INFO, guide=CONSUMERS, section="single-active-consumer")


async def test_get_on_a_single_active_consumer_quorum_queue(broker):
    queue = await broker.queue("quorum", messages=[b"m"], arguments=SINGLE_ACTIVE)
    async with broker.channel() as channel:
        await observe_answer("outcome seen", channel.get(queue, no_ack=True),
                             lambda fetched: "get-empty" if fetched is None else f"get-ok ({fetched.body!r})")
