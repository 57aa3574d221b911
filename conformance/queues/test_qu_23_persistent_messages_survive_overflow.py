"""QU-23: with no length limit set, a queue that outgrows the broker's memory discards no
persistent message: every message the broker confirmed comes out of it.

Source: basic [02] ("MUST NOT discard a persistent basic message in case of a queue
overflow"; its scenario: an overflow with persistent messages, nothing lost). The
overflow is made, not waited for: on the worker's own node (the patient node, whose
rabbitmqctl is at hand) the memory limit is set MEMORY_HEADROOM above what the node holds,
and the queue is given OVERFLOW_FACTOR times that in persistent messages, with confirms.
The broker may hold the publisher back (connection.blocked, confirms that wait): the spec
forbids only the discard, so what it confirmed before that is what must come out. A
broker that confirmed less than the headroom never overflowed, and the case says so
(not exercised). Unsupported with --amqp-url, and, before any node starts, on brokers
whose memory limit conformance/brokers.toml does not say how to lower (it knows
RabbitMQ's watermark only)."""

import pytest

from amqp_conformance.fixtures.vocabulary import (MEMORY_HEADROOM, MUST, OVERFLOW_FACTOR, SPEC, check, drain_queue,
                                                  memory_limit_lowered, not_exercised, own_queue,
                                                  publish_past_memory, rule, timeouts)

RULE = rule("QU-23", "No persistent message is discarded as a queue outgrows the broker's memory",
            strength=MUST, guide=SPEC, section="class.basic", source="basic [02]", needs=("managed-node",),
            accepts=("the publisher held back (connection.blocked, or confirms late) once the queue is over the "
                     "limit, and nacks: only what the broker acked must come out"))

# A minute: tens of MiB written to disk and read back on a loaded host (14 s at load 28).
DRAIN_S = 60.0


@pytest.mark.timeout(timeouts.NODE_BACKSTOP_S)  # the publishing, held back at most once, and the drain
@pytest.mark.node_setting("memory-watermark")
async def test_a_queue_past_the_memory_limit_keeps_every_persistent_message(patient_broker):
    channel = await (await patient_broker.connection()).channel()
    queue = await own_queue(patient_broker, channel)
    async with memory_limit_lowered(patient_broker, MEMORY_HEADROOM):
        overflow = await publish_past_memory(patient_broker, queue, OVERFLOW_FACTOR * MEMORY_HEADROOM)
        if overflow.acked_octets <= MEMORY_HEADROOM:
            not_exercised("the broker confirmed less than the memory left below its limit: the queue never overflowed")
        # Nothing else consumes the queue: once it is empty, what has not come is lost.
        arrived = await drain_queue(patient_broker, None, queue, expect=overflow.acked, within=DRAIN_S,
                                    sole_holder=True)
    lost = sorted(overflow.acked - {d.message_id for d in arrived})
    check(not lost, "every persistent message the broker confirmed comes out of the overflowed queue",
          expected=f"all {len(overflow.acked)} acked messages", actual=f"{len(lost)} missing: {lost[:10]}")
