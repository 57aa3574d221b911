"""PERF-02 (measured, never judged): the guide says a higher prefetch raises the delivery
rate with diminishing returns above 100 to 300, that prefetch 1 is the slowest, above all
over a slow network, and that automatic acknowledgement is the fastest. This measures
one consumer at each prefetch and with automatic ack, straight to the broker and through
20 ms of Toxiproxy latency, with RabbitMQ PerfTest at prefetch 300 beside it."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, Figure, INFO, PERFTEST, REPETITIONS, attach_figures, budget,
                                                  consume_rate, fill, latency, observe, perftest_classpath,
                                                  perftest_consumer, perftest_fill_withheld, ratio, rule)

RULE = rule("PERF-02", "Consumer delivery rate by prefetch and with automatic ack, direct and over latency",
            strength=INFO, guide=CONFIRMS, section="channel-qos-prefetch-throughput")

SETTINGS = {"prefetch 1": 1, "prefetch 10": 10, "prefetch 100": 100, "prefetch 300": 300, "prefetch 1000": 1000,
            "unlimited": None, "automatic ack": None}
CLAIMS = {"prefetch 1": "the slowest, above all over a slow network",
          "prefetch 100": "100-300: the best rate, diminishing returns above",
          "prefetch 300": "100-300: the best rate, diminishing returns above",
          "automatic ack": "the fastest"}
# Over 20 ms each way a prefetch-1 consumer manages about 25 deliveries a second: a
# small queue is enough there (direct: the measurement budget's most).
MESSAGES = {"direct": None, "latency 20 ms": 5000}
PERFTEST_SETTING = "prefetch 300"  # PerfTest runs beside ours at this setting (-q 300)
PERFTEST_FILL_LIMIT = 400_000  # PerfTest's queue must outlast its run; never more than this


@pytest.mark.timeout(1200)
@pytest.mark.parametrize("path", ["direct", "latency 20 ms"])
async def test_consumer_rate_by_prefetch(broker, fault_proxy, path, progress):
    target = None
    if path != "direct":
        target = broker.target.with_address(fault_proxy.host, fault_proxy.port)
        for toxic in latency(20).toxics:
            await fault_proxy.aadd_toxic(toxic)
    figures: dict[str, Figure] = {}
    beside = Figure(PERFTEST_SETTING, "msg/s", PERFTEST)
    withheld = None
    for setting, prefetch in SETTINGS.items():
        figure = figures[setting] = Figure(setting, "msg/s", claim=CLAIMS.get(setting))
        for run in range(REPETITIONS):
            queue = await broker.queue("classic")
            queued, intake = await fill(broker, queue, MESSAGES[path] or budget().max_messages,
                                        seconds=budget().fill_seconds)
            rate, received = await consume_rate(broker, queue, prefetch=prefetch, target=target,
                                                auto_ack=setting == "automatic ack", max_messages=queued)
            figure.add(rate)
            progress(f"PERF-02 {path} {setting} run {run + 1}/{REPETITIONS}: {rate:,.0f} msg/s ({received} of {queued}, "
                     f"load {figure.loads[-1]:.1f})")
            # ours, then PerfTest, in turn: the two figures of a repetition share the machine's load
            if setting == PERFTEST_SETTING and path == "direct" and perftest_classpath() is not None:
                # the queue holds enough for PerfTest's whole run at twice the rate ours just measured
                messages = min(PERFTEST_FILL_LIMIT, int(rate * (budget().perftest_seconds + 2) * 2))
                withheld = perftest_fill_withheld(messages, intake)
                if withheld:
                    continue
                beside.add(await perftest_consumer(broker, SETTINGS[PERFTEST_SETTING], messages))
                progress(f"PERF-02 PerfTest {PERFTEST_SETTING} run {run + 1}/{REPETITIONS}: {beside.runs[-1]:,.0f} "
                         f"msg/s ({messages} in the queue, load {beside.loads[-1]:.1f})")
        observe(f"{setting} ({path})", str(figure))
    best = max(figures, key=lambda name: figures[name].median)
    observe(f"fastest ({path})", f"{best}; the guide: automatic ack, then prefetch 100-300")
    gain = ratio("prefetch 300 / prefetch 1", figures["prefetch 300"], figures["prefetch 1"],
                 "more than 1x, more so over a slow network")
    observe(f"prefetch 300 / prefetch 1 ({path})", str(gain))
    if withheld and not beside.runs:
        observe(f"PerfTest {PERFTEST_SETTING} ({path})", withheld)
    if beside.runs:
        observe(f"PerfTest {PERFTEST_SETTING} ({path})", str(beside))
        ours_to_theirs = ratio("ours / PerfTest", figures[PERFTEST_SETTING], beside)
        observe(f"ours / PerfTest, {PERFTEST_SETTING}", str(ours_to_theirs))
    attach_figures(RULE.id, path, [*figures.values(), gain, *([beside] if beside.runs else [])])
