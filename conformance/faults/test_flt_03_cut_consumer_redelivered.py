"""FLT-03: when a fault cuts a consumer (TCP reset, the proxy down, a silent peer past
the heartbeat, a delivery cut mid-frame), every delivery it had not acked is delivered
again with redelivered=true, and what it acked (and the broker confirmed) stays acked.
Judged on the whole message history, with partial acks before the cut."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, CONSUMER_CUTS, MUST, cut_consumer,
                                                  expect_deliveries_before_the_cut, expect_none, message_ids, rule)

RULE = rule("FLT-03", "A consumer cut by a fault gets its unacked deliveries redelivered, flagged",
            strength=MUST, guide=CONFIRMS, section="automatic-requeueing")

pytestmark = pytest.mark.fault
MESSAGES, ACKED = 10, 3


@pytest.mark.parametrize("cut", CONSUMER_CUTS.values(), ids=CONSUMER_CUTS.keys())
async def test_every_unacked_delivery_comes_back_flagged(broker, faults, history, cut):
    history.fault_name = cut.name
    queue = await broker.queue()

    outcome = await cut_consumer(faults, queue, message_ids("flt03", MESSAGES), cut, acks=ACKED)

    verdict = history.check(detection_window_s=cut.window_s)
    expect_deliveries_before_the_cut(outcome, cut, "the consumer held deliveries when it was cut",
                                     unexercised="redelivered=true and acked-before-the-cut")
    expect_none(verdict, "not_redelivered", "every delivery unacked at the cut is delivered again")
    expect_none(verdict, "unflagged_redeliveries", "a redelivery carries redelivered=true")
    expect_none(verdict, "acked_redelivered", "a delivery acked before the cut is not delivered again")
    expect_none(verdict, "lost", "no confirmed message is lost")
