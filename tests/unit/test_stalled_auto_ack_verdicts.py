"""FLT-09's automatic-ack verdict (expect_auto_ack_accounted) on recorded outcomes: a broker
may keep a stalled automatic-ack consumer or end its connection. Ending it passes when
only the messages in flight are lost and every later one stays queued; a loss while the
connection lives, a loss of a message never sent, a repeat or a reordering fails."""

import pytest

from amqp_conformance.fixtures.checking import verifiers
from amqp_conformance.fixtures.vocabulary import expect_auto_ack_accounted, message_ids
from amqp_conformance.fixtures.checking.verifiers import RuleViolation

IDS = message_ids("flt09", 20)


@pytest.fixture(autouse=True)
def record():
    return verifiers.begin_test()


def test_a_kept_consumer_that_got_everything_passes():
    expect_auto_ack_accounted(IDS, IDS, [], kept=True)


def test_a_kept_consumer_with_the_rest_still_queued_passes():
    expect_auto_ack_accounted(IDS, IDS[:12], IDS[12:], kept=True)


def test_a_closed_consumer_passes_when_only_messages_in_flight_are_lost(record):
    # 8 delivered, 4 sent but never arrived (in flight when the broker ended the connection), 8 still queued
    expect_auto_ack_accounted(IDS, IDS[:8], IDS[12:], kept=False)
    assert record.observations["delivered / lost in flight / still queued"] == "8 / 4 / 8"


def test_a_closed_consumer_passes_with_nothing_lost_at_all():
    expect_auto_ack_accounted(IDS, IDS[:8], IDS[8:], kept=False)


def test_a_closed_consumer_fails_when_a_message_it_had_not_sent_is_lost():
    with pytest.raises(RuleViolation, match="only messages in flight are lost"):
        expect_auto_ack_accounted(IDS, IDS[:8], IDS[10:15] + IDS[16:], kept=False)


def test_a_loss_while_the_connection_lives_fails():
    with pytest.raises(RuleViolation, match="no message is lost"):
        expect_auto_ack_accounted(IDS, IDS[:8] + IDS[9:], [], kept=True)


def test_a_reordered_or_repeated_delivery_fails_either_way():
    swapped = IDS[:5] + [IDS[6], IDS[5]] + IDS[7:]
    for kept in (True, False):
        with pytest.raises(RuleViolation, match="at most once, in publish order"):
            expect_auto_ack_accounted(IDS, swapped, [], kept=kept)
        with pytest.raises(RuleViolation, match="at most once, in publish order"):
            expect_auto_ack_accounted(IDS, IDS[:8] + [IDS[7]], IDS[8:], kept=kept)


def test_a_delivered_message_still_queued_fails():
    with pytest.raises(RuleViolation, match="none delivered is still queued"):
        expect_auto_ack_accounted(IDS, IDS[:8], IDS[7:], kept=False)


def test_a_message_the_broker_never_confirmed_is_not_owed():
    # a publisher held back by the broker's flow control: 12 confirmed, 8 never were, and never arrived
    expect_auto_ack_accounted(IDS, IDS[:12], [], kept=True, confirmed=set(IDS[:12]))
    with pytest.raises(RuleViolation, match="no message is lost"):
        expect_auto_ack_accounted(IDS, IDS[:11], [], kept=True, confirmed=set(IDS[:12]))
