"""CON-08 (INFO): what basic.get does on a quorum queue with single active consumer.
RabbitMQ refuses it, closing the channel with 405 RESOURCE_LOCKED; the report records
the reply seen (scope, code, text) or the answer given instead."""

from fixtures import CONSUMERS, INFO, SINGLE_ACTIVE, Closed, NoReply, observe, rule

RULE = rule("CON-08", "basic.get on a quorum queue with single active consumer",
            strength=INFO, guide=CONSUMERS, section="single-active-consumer")


async def test_get_on_a_single_active_consumer_quorum_queue(broker):
    queue = await broker.queue("quorum", messages=[b"m"], arguments=SINGLE_ACTIVE)
    async with broker.channel() as channel:
        try:
            fetched = await channel.get(queue, no_ack=True)
            observe("outcome seen", "get-empty" if fetched is None else f"get-ok ({fetched.body!r})")
        except Closed as refused:
            observe("outcome seen", str(refused.reply))
        except NoReply as silent:
            observe("outcome seen", str(silent))
