"""Each conforming variant really acts: a short wire dialogue through the variant proxy sees
the variant's choice on the wire, and the same dialogue without it sees RabbitMQ's (as
tests/mutation/test_mutants_behave.py does for the mutants). A variant that never acts
would make ci/variants' "equal" meaningless. Catalogue facts are checked without a broker."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from pamqp import commands as spec
from pamqp.heartbeat import Heartbeat

from amqp_conformance.fixtures.wire.target import FRAME_MIN_SIZE
from amqp_conformance.fixtures.wire.dialogue import Confirm, Delivery, NoReply
from amqp_conformance.fixtures.wire.handshake import HandshakeConnection
from tests.frame_proxy import FrameProxy, close_for_an_unknown_ack, dialogue_through
from tests.suite_runs import node_args, run_suite
from tests.variants import VARIANTS
from tests.variants.base import COMMANDS_HELD

BODY_FRAME = 3


def test_the_catalogue_names_a_source_for_every_variant():
    assert len(VARIANTS) >= 12
    for variant in VARIANTS.values():
        guide, sentence = variant.allowed_by
        assert guide.url.startswith("https://") and sentence and variant.description, variant.name


async def confirm_of_one_publish(broker, connection):
    """Coalesced: a single publish is confirmed by ack(1, multiple)."""
    channel = await connection.channel()
    await channel.confirm_select()
    channel.publish(b"m", routing_key=await broker.queue())
    confirm = await channel.expect(Confirm)
    return confirm.multiple and confirm.delivery_tag == 1


async def confirms_of_two_publishes(broker, connection):
    """Split (behind the coalescing variant, which makes multiple confirms): two single acks."""
    channel = await connection.channel()
    await channel.confirm_select()
    queue = await broker.queue()
    channel.publish(b"1", routing_key=queue)
    channel.publish(b"2", routing_key=queue)
    confirms = [await channel.expect(Confirm)]
    if confirms[0].delivery_tag == 1:
        confirms.append(await channel.expect(Confirm))
    return [(c.delivery_tag, c.multiple) for c in confirms] == [(1, False), (2, False)]


async def slow_confirm(broker, connection):
    # Whether the confirm was held is what the proxy counts (HELD_BY_THE_PROXY), never a
    # clock: a pass-through confirm also takes 250 ms on a loaded machine.
    channel = await connection.channel()
    await channel.confirm_select()
    channel.publish(b"m", routing_key=await broker.queue())
    return isinstance(await channel.expect(Confirm), Confirm)


async def spaced_tags(broker, connection):
    channel = await connection.channel()
    queue = await broker.queue(messages=[b"a", b"b"])
    tags = [(await channel.get(queue)).delivery_tag for _ in range(2)]
    channel.ack(tags[1], multiple=True)  # mapped back: the broker settles both
    await channel.barrier()
    return tags == [3, 6] and await broker.ready_count(queue) == 0


async def second_consumer_first(broker, connection):
    channel = await connection.channel()
    queue = await broker.queue()
    for tag in ("first", "second"):
        await channel.consume(queue, consumer_tag=tag, no_ack=True)
    await broker.publish(queue, b"m1", b"m2")
    order = [(await channel.expect_delivery()).consumer_tag for _ in range(2)]
    return order == ["second", "first"]


async def slow_get(broker, connection):
    channel = await connection.channel()
    queue = await broker.queue(messages=[b"m"])
    return await channel.get(queue) is not None


async def reworded_close(broker, connection):
    reply = await close_for_an_unknown_ack(connection)
    return reply is not None and reply.code == 406 and "conforming variant" in reply.text


async def body_in_octets(broker, connection):
    channel = await connection.channel()
    queue = await broker.queue(messages=[b"hello"])
    seen = len(connection.received)
    delivery = await channel.get(queue)
    bodies = [raw for _, _, raw in connection.received[seen:] if raw[:1] == bytes([BODY_FRAME])]
    return delivery.body == b"hello" and len(bodies) == 5


async def smallest_frame_max(broker, connection):
    return connection.frame_max == FRAME_MIN_SIZE


async def heartbeats_unasked(broker, connection):
    beats = []
    connection.frame_listeners.append(lambda direction, _, frame: beats.append(frame)
                                      if direction == "<-" and isinstance(frame, Heartbeat) else None)
    await asyncio.sleep(1.0)  # the connection agreed no heartbeat at all
    return len(beats) >= 3


async def other_capabilities(broker, connection):
    capabilities = connection.server_capabilities
    return capabilities.get("x-conforming-variant") is True and "consumer_priorities" not in capabilities


async def interleaved_frames(broker, connection):
    queues = [await broker.queue(), await broker.queue()]
    channels = [await connection.channel(), await connection.channel()]
    for channel, queue in zip(channels, queues):
        await channel.consume(queue, no_ack=True)
    # The variant mixes what it holds in one 5 ms window; the broker's two deliveries leave
    # it in one breath, but on a loaded host one may reach the proxy after the window shut.
    # So the pair is sent again (each round waits for both deliveries) until one window
    # held both: the variant acts if it mixes them whenever it can. Without it, no round mixes.
    for _ in range(ROUNDS_FOR_ONE_SHARED_WINDOW):
        seen = len(connection.received)
        for queue in queues:
            channels[0].publish(b"m", routing_key=queue)
        for channel in channels:
            await channel.expect(Delivery)
        order = [number for _, number, _ in connection.received[seen:] if number in (c.number for c in channels)]
        if sum(1 for i in range(1, len(order)) if order[i] != order[i - 1]) > 1:
            return True  # whole messages one after the other change channel once
    return False


ROUNDS_FOR_ONE_SHARED_WINDOW = 20


async def paused_refusal(broker, connection):
    """An unknown virtual host is refused (the pause is what the proxy counts, HELD_BY_THE_PROXY)."""
    refused = await HandshakeConnection.connect(broker.target)
    try:
        refused.send_header()
        await refused.expect(spec.Connection.Start)
        refused.start_ok()
        await refused.expect(spec.Connection.Tune)
        refused.tune_ok()
        refused.open("no-such-vhost-of-a-variant")
        while (heard := await refused.next(5.0)) is not None and not heard.ended:
            if isinstance(heard.what, spec.Connection.Close):
                break
        if heard is None:
            raise NoReply("the refused connection did not end")
        return True
    finally:
        refused.abort()


async def generated_names_elsewhere(broker, connection):
    """A server-named queue and a generated consumer tag come in the variant's format, and
    both still work: a message published by the queue's name reaches the tagged consumer."""
    channel = await connection.channel()
    declared = await channel.call(spec.Queue.Declare(queue="", exclusive=True), spec.Queue.DeclareOk)
    tag = await channel.consume(declared.queue, no_ack=True)
    channel.publish(b"named", routing_key=declared.queue)
    delivery = await channel.expect_delivery()
    assert (delivery.body, delivery.consumer_tag, delivery.routing_key) == (b"named", tag, declared.queue)
    return not declared.queue.startswith("amq.") and not tag.startswith("amq.")


async def delete_counting_a_held_delivery(broker, connection):
    """A queue with two messages, one of them fetched and held unacknowledged, is deleted:
    RabbitMQ's delete-ok counts the one ready message, the variant's both."""
    channel = await connection.channel()
    declared = await channel.call(spec.Queue.Declare(queue="", exclusive=True), spec.Queue.DeclareOk)
    for body in (b"held", b"ready"):
        channel.publish(body, routing_key=declared.queue)
    await channel.barrier()
    assert await channel.get(declared.queue) is not None
    deleted = await channel.call(spec.Queue.Delete(queue=declared.queue), spec.Queue.DeleteOk)
    return deleted.message_count == 2


async def consumer_at_its_prefetch_limit(broker, connection):
    """A consumer with prefetch 1 holds one unacknowledged delivery of a queue that has
    another ready: RabbitMQ's declare-ok counts it, the variant's does not."""
    channel, other = await connection.channel(), await connection.channel()
    declared = await channel.call(spec.Queue.Declare(queue="", exclusive=True), spec.Queue.DeclareOk)
    for body in (b"held", b"waiting"):
        channel.publish(body, routing_key=declared.queue)
    await channel.call(spec.Basic.Qos(prefetch_count=1), spec.Basic.QosOk)
    await channel.consume(declared.queue)
    await channel.expect_delivery()
    seen = await other.call(spec.Queue.Declare(queue=declared.queue, passive=True), spec.Queue.DeclareOk)
    return seen.consumer_count == 0


DIALOGUES = {  # variant -> (dialogue, the rewrite in front of the broker it needs, if any)
    "coalesced_confirms": (confirm_of_one_publish, None),
    "split_multiple_confirms": (confirms_of_two_publishes, "coalesced_confirms"),
    "delayed_confirms": (slow_confirm, None),
    "spaced_delivery_tags": (spaced_tags, None),
    "round_robin_from_another_consumer": (second_consumer_first, None),
    "delayed_deliveries": (slow_get, None),
    "reworded_reply_texts": (reworded_close, None),
    "one_octet_body_frames": (body_in_octets, None),
    "lowest_frame_max": (smallest_frame_max, None),
    "frequent_heartbeats": (heartbeats_unasked, None),
    "other_capabilities": (other_capabilities, None),
    "interleaved_channel_frames": (interleaved_frames, None),
    "paused_handshake_refusal": (paused_refusal, None),
    "generated_names_in_another_format": (generated_names_elsewhere, None),
    "delete_ok_counts_unacked": (delete_counting_a_held_delivery, None),
    "active_consumers_only": (consumer_at_its_prefetch_limit, None),
}


# Variants whose act is a delay: their dialogue shows the exchange completes, and the act
# is that the proxy held the broker's commands (tests/variants/base.Held counts them).
HELD_BY_THE_PROXY = {"delayed_confirms", "delayed_deliveries", "paused_handshake_refusal"}


def test_every_variant_has_a_dialogue():
    assert set(DIALOGUES) == set(VARIANTS)


@pytest.mark.integration
@pytest.mark.timeout(60)
@pytest.mark.parametrize("with_variant", [True, False], ids=["variant", "rabbitmq"])
@pytest.mark.parametrize("name", DIALOGUES)
async def test_variant_acts_on_the_wire(plain_rabbitmq, name, with_variant):
    dialogue, in_front_of_broker = DIALOGUES[name]
    target = plain_rabbitmq.target
    with contextlib.ExitStack() as proxies:
        if in_front_of_broker:
            inner = proxies.enter_context(FrameProxy(target.host, target.port, VARIANTS[in_front_of_broker]))
            target = target.with_address("127.0.0.1", inner.port)
        proxy = proxies.enter_context(FrameProxy(target.host, target.port, VARIANTS[name] if with_variant else None))
        async with dialogue_through(proxy, target, plain_rabbitmq.consumer_timeout_ms, f"{name}-{with_variant}") as (
                broker, connection):
            acted = await dialogue(broker, connection)
    if name in HELD_BY_THE_PROXY:
        acted = acted and proxy.shared.get(COMMANDS_HELD, 0) > 0
    assert not proxy.errors, proxy.errors
    assert acted == with_variant, f"{name}: {VARIANTS[name].description}"


@pytest.mark.integration
@pytest.mark.timeout(300)
def test_pc_05_is_exercised_through_coalesced_confirms(plain_rabbitmq, tmp_path):
    """PC-05 judges multiple=true confirms. RabbitMQ may send none in a run, and then the
    rule passes without having judged anything; through the coalescing variant every
    confirm is a multiple one, so there the rule is exercised, and must still pass."""
    target = plain_rabbitmq.target
    with FrameProxy(target.host, target.port, VARIANTS["coalesced_confirms"]) as proxy:
        run = run_suite(tmp_path, *node_args(plain_rabbitmq, target.with_address("127.0.0.1", proxy.port).url),
                        "-k", "pc_05 and not flt05", "-n", "0")
    assert not proxy.errors, proxy.errors
    cases = [c for c in run.cases if c.properties.get("rule") == "PC-05"]
    assert cases, run.output[-2000:]
    for case in cases:
        assert case.outcome == "pass", (case.name, case.failure)
        assert int(case.properties.get("multiple=true frames", "0")) > 0, (case.name, case.properties)
