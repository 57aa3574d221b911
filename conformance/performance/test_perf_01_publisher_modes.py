"""PERF-01 (measured, never judged): the guides say transactions cut publisher throughput
by about 250 times against confirms, that a confirm awaited after every publish is about
as slow as a transaction, and that batch and asynchronous confirms are much faster than
both. This measures every publishing mode with transient and persistent messages,
reports the ratios the guides predict, and runs RabbitMQ PerfTest in the modes it has
beside the suite's own publisher (PerfTest has no batch-confirm mode). A broker without
transactions has its transaction modes unsupported, with the probe's evidence."""

import pytest

from amqp_conformance.fixtures.vocabulary import (ASYNC_WINDOW, CONFIRMS, Figure, INFO, PERFTEST, PUBLISH_MODES,
                                                  REPETITIONS, attach_figures, observe, perftest_classpath,
                                                  perftest_publisher, perftest_withheld, publish_rate, ratio, rule)

RULE = rule("PERF-01", "Publisher throughput by mode: no confirms, tx, per-message, batch and asynchronous confirms",
            strength=INFO, guide=CONFIRMS, section="publisher-confirms")

# What the guides say about each mode, beside its figure
MODE_CLAIMS = {
    "tx per message": "about 250x slower than confirms (CONFIRMS)",
    "confirm per message": "about as slow as a transaction per message (BOOK fig. 4-12)",
    "batch confirm": "much faster than per-message confirm and tx (BOOK fig. 4-13)",
    "asynchronous confirm": "the fastest safe mode; much faster than tx (CONFIRMS, BOOK fig. 4-13)",
}
# ... and as ratios of two modes' rates: (faster, slower, what the guide says)
CLAIMS = (
    ("asynchronous confirm", "tx per message", "about 250x (CONFIRMS: transactions cut throughput by a factor of 250)"),
    ("confirm per message", "tx per message", "about 1x (BOOK fig. 4-12: per-message confirm is no faster than tx)"),
    ("batch confirm", "confirm per message", "much more than 1x (BOOK fig. 4-13)"),
    ("asynchronous confirm", "confirm per message", "much more than 1x (BOOK fig. 4-13)"),
)
# PerfTest's command-line modes for the modes it has
PERFTEST_MODES = {"no confirms": (), "tx per message": ("-m", "1"), "confirm per message": ("-c", "1"),
                  "asynchronous confirm": ("-c", str(ASYNC_WINDOW))}


@pytest.mark.timeout(1200)
@pytest.mark.parametrize("delivery", ["transient", "persistent"])
async def test_publisher_throughput_by_mode(broker, delivery, progress):
    persistent = delivery == "persistent"
    no_tx = await broker.lacks("tx")
    if perftest_classpath() is None:
        observe("PerfTest", "not run: AMQP_PERFTEST=off, or not installed (ci/brokers perftest)")
    ours: dict[str, Figure] = {}
    theirs: dict[str, Figure] = {}
    for mode in PUBLISH_MODES:
        figure = ours[mode] = Figure(mode, "msg/s", claim=MODE_CLAIMS.get(mode),
                                     unsupported=no_tx if mode.startswith("tx") else None)
        beside = theirs[mode] = Figure(mode, "msg/s", PERFTEST, unsupported=figure.unsupported)
        withheld = perftest_withheld(broker, mode) if mode in PERFTEST_MODES else None
        if withheld:
            observe(f"PerfTest {mode} ({delivery})", withheld)
        # ours, then PerfTest, in turn: the two figures of a repetition share the machine's load
        for run in range(REPETITIONS if not figure.unsupported else 0):
            rate, sent, _ = await publish_rate(broker, mode, persistent=persistent)
            figure.add(rate)
            progress(f"PERF-01 {delivery} {mode} run {run + 1}/{REPETITIONS}: {rate:,.0f} msg/s ({sent} messages, "
                     f"load {figure.loads[-1]:.1f})")
            if mode in PERFTEST_MODES and perftest_classpath() is not None and not withheld:
                beside.add(await perftest_publisher(broker, *PERFTEST_MODES[mode], persistent=persistent))
                progress(f"PERF-01 {delivery} PerfTest {mode} run {run + 1}/{REPETITIONS}: {beside.runs[-1]:,.0f} "
                         f"msg/s (load {beside.loads[-1]:.1f})")
        observe(f"{mode} ({delivery})", str(figure))
        if beside.runs:
            observe(f"PerfTest {mode} ({delivery})", str(beside))
            observe(f"ours / PerfTest, {mode} ({delivery})", str(ratio("ours / PerfTest", figure, beside)))
    ratios = [ratio(f"{faster} / {slower}", ours[faster], ours[slower], claim) for faster, slower, claim in CLAIMS]
    for figure in ratios:
        observe(f"ratio {figure.setting} ({delivery})", f"{figure}; the guide: {figure.claim}")
    perftest = [f for f in theirs.values()  # a withheld mode has neither runs nor the broker's lack
                if f.setting in PERFTEST_MODES and perftest_classpath() is not None and (f.runs or f.unsupported)]
    attach_figures(RULE.id, delivery, [*ours.values(), *ratios, *perftest])
