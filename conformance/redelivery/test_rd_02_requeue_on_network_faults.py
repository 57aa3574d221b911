"""RD-02 through real network faults (Toxiproxy): a consumer whose TCP connection is
reset, whose proxy goes down, whose peer falls silent (detected by the broker's 1 s
heartbeat) or whose connection is cut in the middle of a delivery frame gets every
unacked delivery requeued; each comes back with redelivered=true and none is lost.
The same shape as the clean-close and client-reset cases of RD-02, through a proxy."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, CONSUMER_CUTS, MUST, check, cut_consumer,
                                                  expect_deliveries_before_the_cut, message_ids, rule)

RULE = rule("RD-02", "Losing the connection requeues unacked deliveries with redelivered=true",
            strength=MUST, guide=CONFIRMS, section="automatic-requeueing")

MESSAGES = 4
pytestmark = pytest.mark.fault


@pytest.mark.parametrize("cut", CONSUMER_CUTS.values(), ids=CONSUMER_CUTS.keys())
async def test_unacked_deliveries_return_redelivered_after_a_network_fault(broker, faults, history, cut):
    history.fault_name = cut.name
    ids = message_ids("rd02", MESSAGES)
    queue = await broker.queue()

    outcome = await cut_consumer(faults, queue, ids, cut)

    verdict = history.check(detection_window_s=cut.window_s)
    seen = {d.message_id for d in outcome.seen}
    returned = {d.message_id: d.redelivered for d in outcome.returned}
    expect_deliveries_before_the_cut(outcome, cut, "the consumer received deliveries before the cut",
                                     unexercised="redelivered=true")
    check(sorted(returned) == sorted(ids), "every unacked delivery is requeued",
          expected=sorted(ids), actual=sorted(returned))
    check(all(returned[i] for i in seen), "requeued deliveries the consumer saw carry redelivered=true",
          expected="redelivered=true", actual={i: returned[i] for i in seen})
    check(not verdict.lost, "no confirmed message is lost", expected="none lost", actual=verdict.lost)
