"""PERF-05 (SHOULD, on demand: -m perf): the guide's prefetch claims, judged as an
ordering. A prefetch of 100 to 300 delivers faster than a prefetch of 1, and by more
over a slow network (20 ms of Toxiproxy latency each way) than straight to the broker;
automatic acknowledgement is the fastest. Each ratio is recorded beside the guide's
words; a broker that misses a claim is non-strict, with the figures. PERF-02 measures
more settings without judging."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, Figure, REPETITIONS, SHOULD, attach_figures, budget,
                                                  consume_rate, fill, latency, non_strict, observe, ratio, rule)

RULE = rule("PERF-05", "Prefetch 100-300 outpaces prefetch 1, by more over latency; automatic ack is the fastest",
            strength=SHOULD, guide=CONFIRMS, section="channel-qos-prefetch-throughput")

SETTINGS = {"prefetch 1": 1, "prefetch 100": 100, "prefetch 300": 300, "automatic ack": None}
# Over 20 ms each way a prefetch-1 consumer takes about 25 a second: a small queue will do
# (direct: the measurement budget's most).
PATHS = {"direct": None, "latency 20 ms": 5000}
# "Automatic ack is the fastest": slower than the best prefetch by more than this share
# misses the claim (the margin is for run-to-run noise on a shared machine).
NOISE = 0.1


async def rates(broker, target, messages: int, path: str, progress) -> dict[str, Figure]:
    figures = {setting: Figure(setting, "msg/s") for setting in SETTINGS}
    for run in range(REPETITIONS):  # every setting once per repetition: they share the machine's load
        for setting, prefetch in SETTINGS.items():
            queue = await broker.queue("classic")
            queued, _ = await fill(broker, queue, messages, seconds=budget().fill_seconds)
            rate, _ = await consume_rate(broker, queue, prefetch=prefetch, target=target, max_messages=queued,
                                         auto_ack=setting == "automatic ack")
            progress(f"PERF-05 {path} {setting} run {run + 1}/{REPETITIONS}: {figures[setting].add(rate):,.0f} msg/s")
    return figures


@pytest.mark.timeout(1200)
async def test_prefetch_claims_keep_the_guides_order(broker, fault_proxy, progress):
    measured, gains = {}, {}
    for path, messages in PATHS.items():
        messages = messages or budget().max_messages
        target = None
        if path != "direct":
            target = broker.target.with_address(fault_proxy.host, fault_proxy.port)
            for toxic in latency(20).toxics:
                await fault_proxy.aadd_toxic(toxic)
        figures = measured[path] = await rates(broker, target, messages, path, progress)
        for figure in figures.values():
            observe(f"{figure.setting} ({path})", str(figure))
        for setting in ("prefetch 100", "prefetch 300"):
            gain = gains[(path, setting)] = ratio(f"{setting} / prefetch 1 ({path})", figures[setting],
                                                  figures["prefetch 1"], "more than 1x, more so over latency")
            observe(f"ratio {gain.setting}", f"{gain}; the guide: {gain.claim}")
            if not gain.median > 1:
                non_strict(f"{setting} is not faster than prefetch 1 ({path}): {gain}")
        best = max((f for s, f in figures.items() if s != "automatic ack"), key=lambda f: f.median)
        if figures["automatic ack"].median < best.median * (1 - NOISE):
            non_strict(f"automatic ack is not the fastest ({path}): {figures['automatic ack']} against "
                       f"{best.setting} {best}")
    for setting in ("prefetch 100", "prefetch 300"):
        direct, slow = gains[("direct", setting)], gains[("latency 20 ms", setting)]
        if not slow.median > direct.median:
            non_strict(f"the gain of {setting} over prefetch 1 is not larger over 20 ms of latency "
                       f"({slow.median:.1f}x) than straight to the broker ({direct.median:.1f}x)")
    attach_figures(RULE.id, "direct and latency 20 ms",
                   [*(f for figures in measured.values() for f in figures.values()), *gains.values()])
