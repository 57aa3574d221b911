"""FLT-01: whatever the network does to a publisher (delay, a stall released later,
frames sliced, the proxy down, a reset, a publish cut mid-frame, a silent peer), every
message the broker confirmed is in the queue afterwards: a confirm is a promise."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, check, down, expect_none, latency, limit_data,
                                                  publish_cut_bytes, publish_through_fault, reset_peer, rule,
                                                  silent_peer, slicer, stall, timeouts)

RULE = rule("FLT-01", "No confirmed message is lost, under any network fault",
            strength=MUST, guide=CONFIRMS, section="publisher-confirms-and-guaranteed-delivery")

pytestmark = pytest.mark.fault
BODY = 2000


def cut_third_publish(queue):
    return lambda ids: limit_data(publish_cut_bytes(queue, ids, whole=2, body_size=BODY), "upstream")


FAULTS = {
    "latency": lambda q: latency(20), "stall-then-release": lambda q: stall("downstream"),
    "slicer": lambda q: slicer(), "down": lambda q: down(), "reset-peer": lambda q: reset_peer("upstream"),
    "limit-data-mid-publish": cut_third_publish, "silent-peer": lambda q: silent_peer(),
}


@pytest.mark.parametrize("make_fault", FAULTS.values(), ids=FAULTS.keys())
async def test_every_confirmed_message_is_delivered(broker, faults, history, make_fault, request):
    history.fault_name = request.node.callspec.id
    queue = await broker.queue()

    outcome = await publish_through_fault(faults, queue, make_fault(queue), body_size=BODY, prefix="flt01")

    verdict = history.check(detection_window_s=timeouts.REPLY)
    check(verdict.confirmed >= len(outcome.before), "the publisher had confirmed messages before the fault",
          expected=f">= {len(outcome.before)} confirmed", actual=verdict.confirmed)
    expect_none(verdict, "lost", "every confirmed message is delivered after the fault")
