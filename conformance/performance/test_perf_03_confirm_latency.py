"""PERF-03 (measured, never judged): the guide says a persistent message's confirm may
take a few hundred milliseconds under load (the store syncs in batches), and comes
promptly for a lone publish on an idle queue (PC-17). This measures the confirm latency
(p50, p99) of persistent messages at several loads, given as the window of outstanding
publishes, and of lone publishes."""

import statistics
import time

import pytest

from fixtures import CONFIRMS, INFO, attach, observe, rule
from fixtures.perf import ASYNC_WINDOW, Figure, progress, publish_rate, record

RULE = rule("PERF-03", "Confirm latency of persistent messages by load, and of a lone publish",
            strength=INFO, guide=CONFIRMS, section="publisher-confirms-latency", requires=("confirms",))

LONE_PUBLISHES = 20


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


@pytest.mark.timeout(600)
async def test_confirm_latency_by_load(broker):
    figures: dict[str, Figure] = {}
    for mode, load in (("confirm per message", "1 outstanding"), ("batch confirm", "batches of 100"),
                       ("asynchronous confirm", f"window of {ASYNC_WINDOW}")):
        rate, sent, latencies = await publish_rate(broker, mode, persistent=True, latency_every=10)
        p50, p99 = percentile(latencies, 0.5) * 1000, percentile(latencies, 0.99) * 1000
        figures[load] = Figure(f"confirm latency, {load}", "ms", [p50, p99])
        observe(f"confirm latency at {load}", f"p50 {p50:.1f} ms, p99 {p99:.1f} ms over {len(latencies)} samples "
                                              f"({rate:,.0f} msg/s)")
        progress(f"PERF-03 {load}: p50 {p50:.1f} ms, p99 {p99:.1f} ms")

    lone: list[float] = []
    for _ in range(LONE_PUBLISHES):
        started = time.perf_counter()
        await publish_rate(broker, "confirm per message", persistent=True, max_messages=1)
        lone.append((time.perf_counter() - started) * 1000)
    observe("lone persistent publish, open to confirm",
            f"median {statistics.median(lone):.1f} ms, max {max(lone):.1f} ms over {LONE_PUBLISHES} "
            "(includes the connection's handshake)")
    figures["lone publish"] = Figure("lone publish incl. handshake", "ms", lone)
    attach("PERF-03 figures.json", record(figures))
