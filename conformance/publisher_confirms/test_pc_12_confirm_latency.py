"""PC-12: how long the broker takes to confirm persistent messages to a durable queue
under a steady load (a fixed number in flight). The guide expects up to a few hundred
milliseconds; the percentiles are recorded, not judged."""

import statistics
import time

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, INFO, Confirm, ConfirmLedger, QUEUE_TYPES, attach,
                                                  observe, rule)

RULE = rule("PC-12", "Confirm latency of persistent messages under steady load (percentiles recorded)",
            strength=INFO, guide=CONFIRMS, section="publisher-confirms-latency", requires=("confirms",),
            timing_dependent=True)

MESSAGES = 1000
IN_FLIGHT = 50  # the steady load: a new publish as soon as one is confirmed
BUDGET_S = 5.0  # a slow broker is measured on fewer messages, not waited for


@pytest.mark.parametrize("queue_type", QUEUE_TYPES)
async def test_confirm_latency_percentiles_are_recorded(broker, queue_type):
    queue = await broker.queue(queue_type)
    ledger, published_at, latency_ms = ConfirmLedger(), {}, {}
    started = time.monotonic()
    async with broker.channel() as channel:
        await channel.confirm_select()
        while ledger.outstanding or (len(ledger.published) < MESSAGES and time.monotonic() - started < BUDGET_S):
            while (len(ledger.published) < MESSAGES and len(ledger.outstanding) < IN_FLIGHT
                   and time.monotonic() - started < BUDGET_S):
                seq = ledger.send(channel, b"x" * 256, routing_key=queue, persistent=True)
                published_at[seq] = time.monotonic()
            resolved_before = len(ledger.resolved_order)
            ledger.record(await channel.expect(Confirm, waiting_for="the next confirm under load"))
            for seq in ledger.resolved_order[resolved_before:]:
                latency_ms[seq] = (time.monotonic() - published_at[seq]) * 1000
    elapsed = time.monotonic() - started
    if ledger.problems:  # judged by PC-04/PC-05; here only noted beside the numbers
        observe("confirm stream problems", ledger.problems[:5])

    cuts = statistics.quantiles(latency_ms.values(), n=100)
    for name, value in (("p50", cuts[49]), ("p95", cuts[94]), ("p99", cuts[98]), ("max", max(latency_ms.values()))):
        observe(f"confirm latency {name}", f"{value:.1f} ms")
    observe("load", f"{len(latency_ms)} persistent 256-byte messages, {IN_FLIGHT} in flight, "
                    f"{len(latency_ms) / elapsed:.0f} msg/s")
    attach("confirm latencies (ms, by sequence number)",
           "\n".join(f"{seq} {ms:.2f}" for seq, ms in sorted(latency_ms.items())))
