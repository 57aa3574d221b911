"""PERF-01 (measured, never judged): the guides say transactions cut publisher throughput
by about 250 times against confirms, that a confirm awaited after every publish is about
as slow as a transaction, and that batch and asynchronous confirms are much faster than
both. This measures every publishing mode with transient and persistent messages,
reports the ratios the guides predict, and runs RabbitMQ PerfTest in the modes it has
beside the suite's own publisher (PerfTest has no batch-confirm mode)."""

import pytest

from fixtures import CONFIRMS, INFO, attach, observe, rule
from fixtures.perf import (ASYNC_WINDOW, PUBLISH_MODES, REPETITIONS, Figure, perftest_classpath, perftest_rate,
                           progress, publish_rate, record)

RULE = rule("PERF-01", "Publisher throughput by mode: no confirms, tx, per-message, batch and asynchronous confirms",
            strength=INFO, guide=CONFIRMS, section="publisher-confirms")

# The guides' claims, as ratios of two modes' rates: (faster, slower, what the guide says)
CLAIMS = (
    ("asynchronous confirm", "tx per message", "about 250x (CONFIRMS: transactions cut throughput by a factor of 250)"),
    ("confirm per message", "tx per message", "about 1x (BOOK fig. 4-12: per-message confirm is no faster than tx)"),
    ("batch confirm", "confirm per message", "much more than 1x (BOOK fig. 4-13)"),
    ("asynchronous confirm", "confirm per message", "much more than 1x (BOOK fig. 4-13)"),
)
# PerfTest's command-line modes for the modes it has
PERFTEST_MODES = {"no confirms": (), "tx per message": ("-m", "1"), "confirm per message": ("-c", "1"),
                  "asynchronous confirm": ("-c", str(ASYNC_WINDOW))}


@pytest.mark.timeout(900)
@pytest.mark.parametrize("delivery", ["transient", "persistent"])
async def test_publisher_throughput_by_mode(broker, delivery):
    persistent = delivery == "persistent"
    figures: dict[str, Figure] = {}
    for mode in PUBLISH_MODES:
        if mode.startswith("tx"):
            await broker.require("tx")
        figure = figures[mode] = Figure(f"ours: {mode}", "msg/s")
        for run in range(REPETITIONS):
            rate, sent, _ = await publish_rate(broker, mode, persistent=persistent)
            figure.runs.append(rate)
            progress(f"PERF-01 {delivery} {mode} run {run + 1}/{REPETITIONS}: {rate:,.0f} msg/s ({sent} messages)")
        observe(f"{mode} ({delivery})", str(figure))

    for faster, slower, claim in CLAIMS:
        ratio = figures[faster].median / max(figures[slower].median, 1e-9)
        observe(f"ratio {faster} / {slower}", f"{ratio:,.1f}x; the guide: {claim}")

    if perftest_classpath() is None:
        observe("PerfTest", "not run: PerfTest is not installed (ci/brokers perftest)")
    else:
        flags = ("-f", "persistent") if persistent else ()
        for mode, args in PERFTEST_MODES.items():
            if mode.startswith("tx") and broker.info.probes.get("tx"):
                continue
            figure = figures[f"PerfTest: {mode}"] = Figure(f"PerfTest: {mode}", "msg/s")
            for run in range(REPETITIONS):
                figure.runs.append(perftest_rate(broker.target.url, "-x", "1", "-y", "0", *args, *flags))
                progress(f"PERF-01 {delivery} PerfTest {mode} run {run + 1}/{REPETITIONS}: {figure.runs[-1]:,.0f} msg/s")
            observe(f"PerfTest {mode} ({delivery})", str(figure))
            observe(f"ours / PerfTest, {mode} ({delivery})",
                    f"{figures[mode].median / max(figure.median, 1e-9):.2f}")
    attach(f"PERF-01 figures ({delivery}).json", record(figures))
