"""PERF-06 (measured, never judged): the CONSUMERS guide says a queue is bound to one core,
so more queues use more of a node's CPUs. This measures the delivery rate of one queue fed
by one publisher, of one queue fed by several publishers (the guide: no faster), and of the
same publishers spread over as many queues, one consumer each (the guide: faster, as far as
the node has cores). Publishers without confirms and automatic-ack consumers run together;
the figure is deliveries per second over every queue, with the publish rate beside it."""

import os

import pytest

from amqp_conformance.fixtures.vocabulary import (CONSUMERS, Figure, INFO, REPETITIONS, attach_figures, delivery_rate,
                                                  observe, ratio, rule)

RULE = rule("PERF-06", "One queue is served by one core: its delivery rate does not grow with more publishers; "
            "more queues go faster", strength=INFO, guide=CONSUMERS, section="queue-parallelism-considerations")

PUBLISHERS = 4
SETTINGS = {"1 publisher, 1 queue": (1, 1), f"{PUBLISHERS} publishers, 1 queue": (PUBLISHERS, 1),
            f"{PUBLISHERS} publishers, {PUBLISHERS} queues": (PUBLISHERS, PUBLISHERS)}
CLAIMS = {f"{PUBLISHERS} publishers, 1 queue": "no faster than one publisher: one queue, one core",
          f"{PUBLISHERS} publishers, {PUBLISHERS} queues": "faster than one queue, up to the node's cores"}


@pytest.mark.timeout(600)
async def test_one_queue_against_several(broker, progress):
    observe("cores on the machine running the suite", f"{os.cpu_count()} (a managed broker shares them)")
    delivered = {setting: Figure(setting, "msg/s", claim=CLAIMS.get(setting)) for setting in SETTINGS}
    published = {setting: Figure(f"{setting}, published", "msg/s") for setting in SETTINGS}
    for run in range(REPETITIONS):  # every setting once per repetition: they share the machine's load
        for setting, (publishers, queues) in SETTINGS.items():
            rate, intake = await delivery_rate(broker, publishers=publishers, queues=queues)
            delivered[setting].add(rate)
            published[setting].add(intake)
            progress(f"PERF-06 {setting} run {run + 1}/{REPETITIONS}: {rate:,.0f} msg/s delivered, "
                     f"{intake:,.0f} published (load {delivered[setting].loads[-1]:.1f})")
    for setting in SETTINGS:
        observe(setting, f"delivered {delivered[setting]}; published {published[setting]}")
    one, more_publishers, more_queues = (delivered[setting] for setting in SETTINGS)
    gains = [ratio(f"{more_publishers.setting} / {one.setting}", more_publishers, one, "about 1x"),
             ratio(f"{more_queues.setting} / {more_publishers.setting}", more_queues, more_publishers,
                   "more than 1x on a node with several cores")]
    for gain in gains:
        observe(f"ratio {gain.setting}", f"{gain}; the guide: {gain.claim}")
    attach_figures(RULE.id, "one queue against several", [*delivered.values(), *published.values(), *gains])
