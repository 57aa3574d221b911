"""FLT-02: faults never make the broker resolve a publish twice or both ways, confirm a
number at or below its multiple=true watermark or one never published, or deliver a
message nobody published. Persistent messages make RabbitMQ batch its confirms
(multiple=true), so the watermark is exercised while frames are delayed, sliced,
stalled or cut."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, MUST, down, expect_none, latency, publish_through_fault,
                                                  rule, slicer, stall, timeouts)

RULE = rule("FLT-02", "No publish is resolved twice or both ways, and no unexpected message is delivered",
            strength=MUST, guide=CONFIRMS, section="server-sent-nacks")

pytestmark = pytest.mark.fault
FAULTS = [latency(15, jitter=10), slicer(8, 6, 10), stall("downstream"), down()]


@pytest.mark.parametrize("fault", FAULTS, ids=str)
async def test_confirms_stay_exactly_once_and_deliveries_stay_known(broker, faults, history, fault):
    history.fault_name = fault.name
    queue = await broker.queue()

    await publish_through_fault(faults, queue, fault, before=100, during=100, prefix="flt02")

    verdict = history.check(detection_window_s=timeouts.REPLY)
    expect_none(verdict, "double_resolutions", "no sequence number is confirmed twice, or acked and nacked")
    expect_none(verdict, "watermark_violations", "no confirm at or below an earlier multiple=true tag")
    expect_none(verdict, "unknown_confirms", "no confirm for a number never published")
    expect_none(verdict, "unexpected", "no message that was never published is delivered")
