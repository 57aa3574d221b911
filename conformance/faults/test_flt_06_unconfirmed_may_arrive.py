"""FLT-06 (measured, never judged): a publisher cut with confirms outstanding cannot know
the fate of its unconfirmed messages; some may be in the queue ("recovered"), some not.
The counts are reported. Downstream latency holds the confirms back so that many are
outstanding when the proxy goes down."""

import pytest

from amqp_conformance.fixtures.vocabulary import (CONFIRMS, Confirm, ConfirmLedger, INFO, down, drain, latency,
                                                  message_ids, observe, rule, timeouts)

RULE = rule("FLT-06", "Unconfirmed messages of a cut publisher may or may not arrive: counted",
            strength=INFO, guide=CONFIRMS, section="publisher-confirms-and-guaranteed-delivery")

pytestmark = pytest.mark.fault
MESSAGES = 200


async def test_unconfirmed_messages_of_a_cut_publisher_are_counted(broker, faults, history):
    history.fault_name = "latency-50ms-downstream, then down"
    queue = await broker.queue()
    await faults.apply(latency(50, stream="downstream"))
    publisher = await faults.connection()
    channel = await publisher.channel()
    await channel.confirm_select()
    ConfirmLedger().send_ids(channel, queue, message_ids("flt06", MESSAGES))
    await channel.expect(Confirm, timeout=timeouts.REPLY)  # the first confirms are through: cut now
    await faults.apply(down())
    await drain(faults, queue, expect=history.confirmed_ids(), within=timeouts.REPLY)

    verdict = history.check(detection_window_s=timeouts.REPLY)
    observe("confirmed before the cut", verdict.confirmed)
    observe("unconfirmed", verdict.published - verdict.confirmed - verdict.nacked)
    observe("recovered (unconfirmed, yet delivered)", len(verdict.recovered))
    observe("lost (confirmed, not delivered)", len(verdict.lost))
