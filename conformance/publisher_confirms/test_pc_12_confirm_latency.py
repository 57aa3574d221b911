"""PC-12: how long the broker takes to confirm persistent messages to a durable queue
under a steady load (a fixed number in flight). The guide expects up to a few hundred
milliseconds; the percentiles are recorded, not judged."""

import statistics
import time

import pytest

from fixtures import CONFIRMS, INFO, Confirm, ConfirmLedger, QUEUE_TYPES, attach, check, observe, rule, timeouts

RULE = rule("PC-12", "Confirm latency of persistent messages under steady load (percentiles recorded)",
            strength=INFO, guide=CONFIRMS, section="publisher-confirms-latency")

MESSAGES = 1000
IN_FLIGHT = 50  # the steady load: a new publish as soon as one is confirmed


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_confirm_latency_percentiles_are_recorded(broker, queue_type):
    await broker.require("confirms")
    queue = await broker.queue(queue_type)
    ledger, published_at, latency_ms = ConfirmLedger(), {}, {}
    started = time.monotonic()
    async with broker.channel() as channel:
        await channel.confirm_select()
        while len(latency_ms) < MESSAGES:
            while len(ledger.published) < MESSAGES and len(ledger.outstanding) < IN_FLIGHT:
                seq = channel.publish(b"x" * 256, routing_key=queue, persistent=True)
                ledger.publish(seq)
                published_at[seq] = time.monotonic()
            resolved_before = len(ledger.resolved_order)
            ledger.record(await channel.expect(Confirm, waiting_for="the next confirm under load"))
            for seq in ledger.resolved_order[resolved_before:]:
                latency_ms[seq] = (time.monotonic() - published_at[seq]) * 1000
    elapsed = time.monotonic() - started
    check(not ledger.problems, "the latency is measured on a well-formed confirm stream",
          expected="each publish resolved once", actual=ledger.problems[:5])

    cuts = statistics.quantiles(latency_ms.values(), n=100)
    for name, value in (("p50", cuts[49]), ("p95", cuts[94]), ("p99", cuts[98]), ("max", max(latency_ms.values()))):
        observe(f"confirm latency {name}", f"{value:.1f} ms")
    observe("load", f"{MESSAGES} persistent 256-byte messages, {IN_FLIGHT} in flight, "
                    f"{MESSAGES / elapsed:.0f} msg/s")
    attach("confirm latencies (ms, by sequence number)",
           "\n".join(f"{seq} {ms:.2f}" for seq, ms in sorted(latency_ms.items())))
