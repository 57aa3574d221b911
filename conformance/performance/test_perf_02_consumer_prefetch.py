"""PERF-02 (measured, never judged): the guide says a higher prefetch raises the delivery
rate with diminishing returns above 100 to 300, that prefetch 1 is the slowest, above all
over a slow network, and that automatic acknowledgement is the fastest. This measures
one consumer at each prefetch and with automatic ack, straight to the broker and through
20 ms of Toxiproxy latency, with RabbitMQ PerfTest at prefetch 300 beside it."""

import pytest

from amqp_faults import latency
from fixtures import CONFIRMS, INFO, attach, observe, rule
from fixtures.perf import (MAX_MESSAGES, REPETITIONS, Figure, consume_rate, fill, perftest_classpath, perftest_rate,
                           progress, record)

RULE = rule("PERF-02", "Consumer delivery rate by prefetch and with automatic ack, direct and over latency",
            strength=INFO, guide=CONFIRMS, section="channel-qos-prefetch-throughput")

SETTINGS = {"prefetch 1": 1, "prefetch 10": 10, "prefetch 100": 100, "prefetch 300": 300, "prefetch 1000": 1000,
            "unlimited": None, "automatic ack": None}
# Over 20 ms each way a prefetch-1 consumer manages about 25 deliveries a second: a
# small queue is enough there.
MESSAGES = {"direct": MAX_MESSAGES, "latency 20 ms": 5000}


@pytest.mark.timeout(900)
@pytest.mark.parametrize("path", ["direct", "latency 20 ms"])
async def test_consumer_rate_by_prefetch(broker, fault_proxy, path):
    target = None
    if path != "direct":
        target = broker.target.with_address(fault_proxy.host, fault_proxy.port)
        for toxic in latency(20).toxics:
            await fault_proxy.aadd_toxic(toxic)
    figures: dict[str, Figure] = {}
    for setting, prefetch in SETTINGS.items():
        figure = figures[setting] = Figure(f"ours: {setting}", "msg/s")
        for run in range(REPETITIONS):
            queue = await broker.queue("classic")
            await fill(broker, queue, MESSAGES[path])
            rate, received = await consume_rate(broker, queue, prefetch=prefetch, target=target,
                                                auto_ack=setting == "automatic ack", max_messages=MESSAGES[path])
            figure.runs.append(rate)
            progress(f"PERF-02 {path} {setting} run {run + 1}/{REPETITIONS}: {rate:,.0f} msg/s ({received})")
        observe(f"{setting} ({path})", str(figure))
    best = max(figures, key=lambda name: figures[name].median)
    observe(f"fastest ({path})", f"{best}; the guide: automatic ack, then prefetch 100-300")
    observe(f"prefetch 300 / prefetch 1 ({path})",
            f"{figures['prefetch 300'].median / max(figures['prefetch 1'].median, 1e-9):,.1f}x")

    if path == "direct" and perftest_classpath() is not None:
        figure = figures["PerfTest: prefetch 300"] = Figure("PerfTest: prefetch 300", "msg/s")
        for run in range(REPETITIONS):
            queue = await broker.queue("classic")
            await fill(broker, queue, MAX_MESSAGES)
            figure.runs.append(perftest_rate(broker.target.url, "-x", "0", "-y", "1", "-q", "300", "-u", queue,
                                             "-p", direction="receiving"))
            progress(f"PERF-02 PerfTest prefetch 300 run {run + 1}/{REPETITIONS}: {figure.runs[-1]:,.0f} msg/s")
        observe("PerfTest prefetch 300 (direct)", str(figure))
        observe("ours / PerfTest, prefetch 300", f"{figures['prefetch 300'].median / max(figure.median, 1e-9):.2f}")
    attach(f"PERF-02 figures ({path}).json", record(figures))
