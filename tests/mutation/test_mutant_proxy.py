"""The mutant proxy's framing, without a broker: bytes cut anywhere by TCP come out
unchanged through the pass-through; a content-bearing command travels whole with its
header and body frames, even with another channel's frames between them; and the
catalogue covers every MUST rule."""

import asyncio

import pytest
from pamqp import commands as spec
from pamqp import frame as pamqp_frame
from pamqp.body import ContentBody
from pamqp.header import ContentHeader, ProtocolHeader

from amqp_conformance.fixtures.core.rules import REGISTRY
from tests.mutation.mutant_proxy import TO_BROKER, TO_CLIENT, Link, MutantProxy
from tests.mutation.mutants import MUST_RULES, MUTANTS, NOT_EXPRESSIBLE, SHOULD_RULES
from tests.mutation.cluster_mutants import CLUSTER_MUTANTS
from tests.stream_fakes import CollectingWriter


def frames(*pairs) -> bytes:
    return b"".join(pamqp_frame.marshal(frame, channel) for channel, frame in pairs)


def delivery(channel, tag, body, redelivered=True, parts=2):
    size = len(body) // parts + 1
    pieces = [body[i:i + size] for i in range(0, len(body), size)]
    return [(channel, spec.Basic.Deliver(consumer_tag="c", delivery_tag=tag, redelivered=redelivered,
                                         exchange="", routing_key="q")),
            (channel, ContentHeader(0, len(body), spec.Basic.Properties(content_type="text/plain")))] + \
        [(channel, ContentBody(p)) for p in pieces]


BROKER_STREAM = frames(
    (0, spec.Connection.Tune(channel_max=10, frame_max=4096, heartbeat=0)),
    *delivery(1, 1, b"first message body"),
    (2, spec.Basic.Ack(delivery_tag=1, multiple=True)),
    *delivery(1, 2, b"x" * 300, parts=3),
    (1, spec.Channel.Close(reply_code=406, reply_text="PRECONDITION_FAILED - unknown delivery tag 9",
                           class_id=60, method_id=80)),
)


async def pump(mutation, stream: bytes, chunk: int, direction=TO_CLIENT) -> tuple[bytes, bytes]:
    proxy = MutantProxy("127.0.0.1", 1, mutation)
    to_client, to_broker = CollectingWriter(), CollectingWriter()
    link = Link(proxy, to_client, to_broker)
    reader = asyncio.StreamReader()

    async def feed():
        for i in range(0, len(stream), chunk):
            reader.feed_data(stream[i:i + chunk])
            await asyncio.sleep(0)  # each chunk is a read of its own
        reader.feed_eof()

    await asyncio.gather(feed(), link.pump(reader, direction))
    return bytes(to_client.data), bytes(to_broker.data)


@pytest.mark.parametrize("chunk", [1, 2, 7, 13, 64, len(BROKER_STREAM)])
async def test_pass_through_leaves_every_byte_unchanged_however_tcp_cuts_the_stream(chunk):
    to_client, _ = await pump(None, BROKER_STREAM, chunk)
    assert to_client == BROKER_STREAM


async def test_client_protocol_header_and_frames_pass_unchanged():
    stream = pamqp_frame.marshal(ProtocolHeader(), 0) + frames(
        (1, spec.Basic.Publish(exchange="", routing_key="q")),
        (1, ContentHeader(0, 5, spec.Basic.Properties())), (1, ContentBody(b"hello")),
        (1, spec.Basic.Ack(delivery_tag=3)))
    _, to_broker = await pump(None, stream, 3, direction=TO_BROKER)
    assert to_broker == stream


@pytest.mark.parametrize("chunk", [1, 5, len(BROKER_STREAM)])
async def test_a_mutation_sees_whole_messages_and_the_rest_stays_raw(chunk):
    to_client, _ = await pump(MUTANTS["clear_redelivered"], BROKER_STREAM, chunk)
    decoded, offset = [], 0
    while offset < len(to_client):
        used, channel, frame = pamqp_frame.unmarshal(to_client[offset:])
        decoded.append((channel, frame))
        offset += used
    deliveries = [f for _, f in decoded if isinstance(f, spec.Basic.Deliver)]
    assert [d.redelivered for d in deliveries] == [False, False]
    bodies = {}
    for channel, frame in decoded:
        if isinstance(frame, ContentBody):
            bodies.setdefault(channel, b"")
            bodies[channel] += frame.value
    assert bodies == {1: b"first message body" + b"x" * 300}
    # Frames the mutation did not touch are the broker's own bytes.
    untouched = frames((2, spec.Basic.Ack(delivery_tag=1, multiple=True)))
    assert untouched in to_client


async def test_a_frame_cut_across_reads_is_marked_split():
    ack = frames((1, spec.Basic.Ack(delivery_tag=1)))
    stream = pamqp_frame.marshal(ProtocolHeader(), 0)
    _, whole = await pump(MUTANTS["acks_lost_when_sliced"], stream + ack, len(stream + ack), TO_BROKER)
    _, sliced = await pump(MUTANTS["acks_lost_when_sliced"], stream + ack, 5, TO_BROKER)
    assert whole == stream + ack and sliced == stream


def test_every_must_rule_has_a_mutant_and_every_mutant_names_catalogue_rules():
    covered = {rule_id for mutant in [*MUTANTS.values(), *CLUSTER_MUTANTS.values()] for rule_id in mutant.breaks}
    assert set(MUST_RULES) - covered - set(NOT_EXPRESSIBLE) == set()
    judged = {rule_id for mutant in [*MUTANTS.values(), *CLUSTER_MUTANTS.values()] if not mutant.hard_error
              for rule_id in mutant.breaks}
    assert judged <= set(MUST_RULES) | set(SHOULD_RULES)
    assert covered <= set(REGISTRY)  # a hard error fails a rule of any strength, INFO ones too
    assert all(m.description for m in [*MUTANTS.values(), *CLUSTER_MUTANTS.values()])


def test_each_mutant_name_is_one_mutant():
    # The catalogue is keyed by name: a second area's mutant of the same name would replace
    # the first one silently, and the rules only the first broke would go unkilled.
    from collections import Counter

    from tests.mutation.mutants import AREAS

    names = Counter(cls().name for area in AREAS for cls in getattr(area, "MUTANTS", ()))
    assert [name for name, count in names.items() if count > 1] == []
