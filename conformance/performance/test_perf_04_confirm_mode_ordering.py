"""PERF-04 (SHOULD, on demand: -m perf): the guides' claims about publishing modes, judged
as an ordering. Asynchronous and batch confirms are faster than a confirm awaited after
every publish and than a transaction per message; a per-message confirm is about as slow
as a transaction per message (BOOK fig. 4-12), so not much faster. Each ratio is recorded
beside the guide's words (CONFIRMS: transactions cut throughput by about 250 times); a
broker that misses a claim is non-strict, with the figures. PERF-01 measures every mode
without judging."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, Figure, REPETITIONS, SHOULD, attach_figures, non_strict,
                                                  observe, publish_rate, ratio, rule)

RULE = rule("PERF-04", "Batch and asynchronous confirms outpace per-message confirms and tx; per-message ~ tx",
            strength=SHOULD, guide=CONFIRMS, section="publisher-confirms")

MODES = ("tx per message", "confirm per message", "batch confirm", "asynchronous confirm")
# (faster, slower, the guide's words): the first must be faster
FASTER = (
    ("asynchronous confirm", "tx per message", "about 250x (CONFIRMS: transactions cut throughput by about 250 times)"),
    ("batch confirm", "tx per message", "much faster than tx (BOOK fig. 4-13)"),
    ("asynchronous confirm", "confirm per message", "much faster (BOOK fig. 4-13)"),
    ("batch confirm", "confirm per message", "much faster (BOOK fig. 4-13)"),
)
# "About as slow as a transaction": a per-message confirm more than this many times faster
# than a transaction per message misses the claim (the factor leaves room for run-to-run
# noise on a shared machine; the figures show how far it was).
ABOUT_AS_SLOW = 2.0


@pytest.mark.timeout(600)
@pytest.mark.parametrize("delivery", ["transient", "persistent"])
async def test_confirm_modes_keep_the_guides_order(broker, delivery, progress):
    no_tx = await broker.lacks("tx")
    figures = {mode: Figure(mode, "msg/s", unsupported=no_tx if mode.startswith("tx") else None) for mode in MODES}
    for run in range(REPETITIONS):  # every mode once per repetition: the modes share the machine's load
        for mode, figure in figures.items():
            if not figure.unsupported:
                rate, sent, _ = await publish_rate(broker, mode, persistent=delivery == "persistent")
                progress(f"PERF-04 {delivery} {mode} run {run + 1}/{REPETITIONS}: {figure.add(rate):,.0f} msg/s")
    for figure in figures.values():
        observe(f"{figure.setting} ({delivery})", str(figure))
    ratios = []
    for faster, slower, claim in FASTER:
        ratios.append(figure := ratio(f"{faster} / {slower}", figures[faster], figures[slower], claim))
        observe(f"ratio {figure.setting} ({delivery})", f"{figure}; the guide: {claim}")
        if figure.runs and not figure.median > 1:
            non_strict(f"{faster} is not faster than {slower} ({delivery}): {figure}; the guide: {claim}")
    ratios.append(near := ratio("confirm per message / tx per message", figures["confirm per message"],
                                figures["tx per message"], "about 1x (BOOK fig. 4-12)"))
    observe(f"ratio {near.setting} ({delivery})", f"{near}; the guide: {near.claim}")
    if near.runs and near.median > ABOUT_AS_SLOW:
        non_strict(f"a per-message confirm is {near.median:.1f}x a transaction per message ({delivery}), more than "
                   f"{ABOUT_AS_SLOW:.0f}x: not 'about as slow' (BOOK fig. 4-12); {near}")
    attach_figures(RULE.id, delivery, [*figures.values(), *ratios])
