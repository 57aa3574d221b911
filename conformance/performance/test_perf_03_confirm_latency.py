"""PERF-03 (measured, never judged): the guide says a persistent message's confirm may
take a few hundred milliseconds under load (the store syncs in batches), and comes
promptly for a lone publish on an idle queue (PC-17). This measures the confirm latency
(p50, p99) of persistent messages at several loads, given as the window of outstanding
publishes, and of lone publishes."""

import time

import pytest

from amqp_conformance.fixtures.vocabulary import (ASYNC_WINDOW, CONFIRMS, Figure, INFO, REPETITIONS, attach_figures,
                                                  observe, publish_rate, rule)

RULE = rule("PERF-03", "Confirm latency of persistent messages by load, and of a lone publish",
            strength=INFO, guide=CONFIRMS, section="publisher-confirms-latency", requires=("confirms",))

LOADS = {"1 outstanding": "confirm per message", "batches of 100": "batch confirm",
         f"window of {ASYNC_WINDOW}": "asynchronous confirm"}
UNDER_LOAD = "a few hundred ms at most under load (CONFIRMS)"
LONE_PUBLISHES = 20


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


@pytest.mark.timeout(600)
async def test_confirm_latency_by_load(broker, progress):
    figures: list[Figure] = []
    for load, mode in LOADS.items():
        p50, p99 = Figure(f"p50, {load}", "ms"), Figure(f"p99, {load}", "ms", claim=UNDER_LOAD)
        for run in range(REPETITIONS):
            rate, _, latencies = await publish_rate(broker, mode, persistent=True, latency_every=10)
            p50.add(percentile(latencies, 0.5) * 1000)
            p99.add(percentile(latencies, 0.99) * 1000)
            progress(f"PERF-03 {load} run {run + 1}/{REPETITIONS}: p50 {p50.runs[-1]:.1f} ms, p99 "
                     f"{p99.runs[-1]:.1f} ms over {len(latencies)} samples ({rate:,.0f} msg/s)")
        observe(f"confirm latency at {load}", f"p50 {p50}; p99 {p99}")
        figures += [p50, p99]

    lone = Figure("lone publish, with its connection's handshake", "ms", claim="prompt on an idle queue (PC-17)")
    for _ in range(LONE_PUBLISHES):
        started = time.perf_counter()
        await publish_rate(broker, "confirm per message", persistent=True, max_messages=1)
        lone.add((time.perf_counter() - started) * 1000)
    observe("lone persistent publish, open to confirm", str(lone))
    attach_figures(RULE.id, "persistent", [*figures, lone])
