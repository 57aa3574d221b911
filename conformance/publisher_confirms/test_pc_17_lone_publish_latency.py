"""PC-17: how long a lone confirmed publish (nothing else in flight, an idle broker) waits
for its confirm, transient and persistent. The guide promises no batching delay that
waits for more publishes; the times are recorded, not judged."""

import statistics
import time

import pytest

from amqp_conformance.fixtures.vocabulary import CONFIRMS, INFO, QUEUE_TYPES, Confirm, attach, observe, rule

RULE = rule("PC-17", "A lone confirmed publish is confirmed promptly (time recorded)",
            strength=INFO, guide=CONFIRMS, section="publisher-confirms-latency", requires=("confirms",))

SAMPLES = 20


@pytest.mark.parametrize("persistent", [False, True], ids=["transient", "persistent"])
@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_lone_publish_confirm_time_is_recorded(broker, queue_type, persistent):
    queue = await broker.queue(queue_type)
    times_ms = []
    async with broker.channel() as channel:
        await channel.confirm_select()
        for n in range(SAMPLES):  # one at a time: each is alone in flight
            sent = time.monotonic()
            channel.publish(b"lone %d" % n, routing_key=queue, persistent=persistent)
            await channel.expect(Confirm, waiting_for=f"the confirm of lone publish {n + 1}")
            times_ms.append((time.monotonic() - sent) * 1000)
    observe("lone publish confirm time median", f"{statistics.median(times_ms):.1f} ms")
    observe("lone publish confirm time max", f"{max(times_ms):.1f} ms")
    attach("lone publish confirm times (ms, in order)", "\n".join(f"{ms:.2f}" for ms in times_ms))
