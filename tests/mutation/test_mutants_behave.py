"""Mutants whose rules have no module in this checkout yet still have to be real: each
dialogue here drives RabbitMQ through one mutant and sees the broken behaviour on the
wire (the same dialogue without the mutant gives the documented RabbitMQ reply). When a
rule module arrives, the mutation score takes over."""

import pytest
from pamqp import commands as spec

from amqp_conformance.fixtures.wire.dialogue import Closed, Confirm, Delivery, Returned, WireError
from tests.frame_proxy import close_for_an_unknown_ack, dialogue_through
from tests.mutation.mutant_proxy import MutantProxy
from tests.mutation.mutants import MUTANTS

pytestmark = [pytest.mark.integration, pytest.mark.mutation]


async def tags_settle_across_channels(broker, connection):
    queue = await broker.queue(messages=[b"a", b"b"])
    first, second = await connection.channel(), await connection.channel()
    await first.get(queue)
    second.ack((await second.get(queue)).delivery_tag)  # tag 1 of each channel
    await first.close()  # requeues what the first still holds: its b"a", unless settled elsewhere
    return await broker.take_all(queue, expected=1, within=1.0) == []


async def prefetch_ignored(broker, connection):
    queue = await broker.queue(messages=[b"a", b"b", b"c"])
    channel = await connection.channel()
    await channel.qos(1)
    await channel.consume(queue)
    deliveries = [await channel.expect_delivery() for _ in range(3)]  # prefetch 1 would stop at one
    return len(deliveries) == 3


async def cancel_of_unknown_tag_fails(broker, connection):
    channel = await connection.channel()
    try:
        await channel.call(spec.Basic.Cancel(consumer_tag="never-used"), spec.Basic.CancelOk)
        return False
    except Closed as closed:
        await (await connection.channel()).barrier()  # the connection itself is fine
        return closed.reply.code == 404


async def return_after_ack(broker, connection):
    channel = await connection.channel()
    await channel.confirm_select()
    channel.publish(b"m", exchange="amq.direct", routing_key=broker.name("nowhere"), mandatory=True)
    await channel.expect(Returned)
    await channel.expect(Confirm)
    return [type(e) for e in channel.arrivals if isinstance(e, (Confirm, Returned))] == [Confirm, Returned]


async def get_empty_hidden(broker, connection):
    queue = await broker.queue()
    channel = await connection.channel()
    phantom = await channel.get(queue)
    return phantom is not None and phantom.body == b"phantom" and await channel.get(queue) is None


async def rollback_commits(broker, connection):
    queue = await broker.queue()
    channel = await connection.channel()
    await channel.tx_select()
    channel.publish(b"m", routing_key=queue)
    await channel.call(spec.Tx.Rollback(), spec.Tx.RollbackOk)
    return await broker.ready_count(queue) == 1  # a rollback would have discarded it


async def acks_before_close_lost(broker, connection):
    queue = await broker.queue(messages=[b"m"])
    channel = await connection.channel()
    delivery = await channel.get(queue)
    channel.ack(delivery.delivery_tag)
    await channel.close()
    return await broker.wait_ready_count(queue, 1, within=2) == 1  # the ack was honoured: 0


async def channel_error_closes_connection(broker, connection):
    reply = await close_for_an_unknown_ack(connection)
    return reply is not None and reply.scope == "connection" and reply.code == 406


async def consumer_tag_reuse_accepted(broker, connection):
    queue = await broker.queue()
    channel = await connection.channel()
    await channel.consume(queue, "tag")
    return await channel.consume(queue, "tag") == "tag"  # RabbitMQ: connection.close 530


async def nack_sent_as_ack(broker, connection):
    queue = await broker.queue(arguments={"x-max-length": 1, "x-overflow": "reject-publish"})
    channel = await connection.channel()
    await channel.confirm_select()
    channel.publish(b"1", routing_key=queue)
    channel.publish(b"2", routing_key=queue)
    confirms = [await channel.expect(Confirm) for _ in range(2)]
    return all(c.ack for c in confirms)


async def closed_channel_loses_unacked(broker, connection):
    queue = await broker.queue(messages=[b"m"])
    channel = await connection.channel()
    await channel.get(queue)
    await channel.close()
    await (await connection.channel()).barrier()
    return await broker.ready_count(queue) == 0  # RabbitMQ requeues it: 1


async def property_altered(broker, connection):
    queue = await broker.queue()
    channel = await connection.channel()
    channel.publish(b"m", routing_key=queue, properties=spec.Basic.Properties(content_type="text/plain"))
    await channel.barrier()
    delivery = await channel.get(queue)
    return delivery.properties.content_type != "text/plain"


async def recover_does_nothing(broker, connection):
    queue = await broker.queue(messages=[b"m"])
    channel = await connection.channel()
    await channel.consume(queue)
    await channel.expect_delivery()
    await channel.call(spec.Basic.Recover(requeue=True), spec.Basic.RecoverOk)
    return await channel.watch(Delivery, within=1.0) is None  # RabbitMQ redelivers it


DIALOGUES = {f.__name__: f for f in (
    tags_settle_across_channels, prefetch_ignored, cancel_of_unknown_tag_fails, return_after_ack, get_empty_hidden,
    rollback_commits, acks_before_close_lost, channel_error_closes_connection, consumer_tag_reuse_accepted,
    nack_sent_as_ack, closed_channel_loses_unacked, property_altered, recover_does_nothing)}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("with_mutant", [True, False], ids=["mutant", "rabbitmq"])
@pytest.mark.parametrize("name", DIALOGUES)
async def test_mutant_breaks_the_rule_on_the_wire(plain_rabbitmq, name, with_mutant):
    target = plain_rabbitmq.target
    with MutantProxy(target.host, target.port, MUTANTS[name] if with_mutant else None) as proxy:
        async with dialogue_through(proxy, target, plain_rabbitmq.consumer_timeout_ms, f"{name}-{with_mutant}") as (
                broker, connection):
            try:
                broken = await DIALOGUES[name](broker, connection)
            except WireError:  # a close, a time-out: not the broken behaviour the dialogue looks for
                broken = False
    assert not proxy.errors, proxy.errors
    assert broken == with_mutant, f"{name}: {MUTANTS[name].description}"
