"""The confirm ledger on hand-written confirm streams: each way a stream can break
PC-04/PC-05 is caught, and legal streams are not flagged."""

from amqp_conformance.fixtures.vocabulary.confirms import ConfirmLedger
from amqp_conformance.fixtures.wire.dialogue import Confirm


def ledger_after(published: int, *confirms: Confirm) -> ConfirmLedger:
    ledger = ConfirmLedger()
    for seq in range(1, published + 1):
        ledger.publish(seq)
    for confirm in confirms:
        ledger.record(confirm)
    return ledger


def ack(tag, multiple=False):
    return Confirm(tag, multiple, True)


def nack(tag, multiple=False):
    return Confirm(tag, multiple, False)


def test_single_and_multiple_acks_resolve_everything_once():
    ledger = ledger_after(5, ack(2, True), ack(4), ack(5, True))
    assert ledger.problems == [] and ledger.outstanding == []
    assert ledger.resolved_order == [1, 2, 4, 3, 5]


def test_multiple_range_covers_only_outstanding_numbers():
    ledger = ledger_after(4, ack(2), nack(3, True))
    assert ledger.problems == []
    assert ledger.resolution[1] == ["nack(multiple 3)"] and ledger.resolution[2] == ["ack"]


def test_a_duplicate_ack_is_caught():
    assert any("resolved again" in p for p in ledger_after(2, ack(1), ack(1)).problems)


def test_ack_then_nack_of_one_number_is_caught():
    ledger = ledger_after(2, ack(1), nack(1))
    assert ledger.ack_and_nack() == [1]


def test_a_confirm_at_or_below_the_watermark_is_caught():
    ledger = ledger_after(5, ack(2), ack(4, True), nack(3))
    assert any("watermark" in p for p in ledger.problems)


def test_a_multiple_confirm_whose_own_tag_was_resolved_is_caught():
    ledger = ledger_after(3, ack(2), ack(2, True))
    assert any("already resolved" in p for p in ledger.problems)


def test_a_number_never_published_is_caught():
    assert any("never published" in p for p in ledger_after(2, ack(3)).problems)


def test_an_unresolved_number_stays_outstanding():
    assert ledger_after(3, ack(2, True)).outstanding == [3]


def test_history_names_ranges():
    assert "published: 1-3" in ledger_after(3).history()


def test_a_multiple_ack_of_the_only_outstanding_number_confirms_exactly_it():
    # PC-15's frames from a broker that sets multiple on every ack: ack(3, multiple=true)
    # after 1 and 2 are confirmed resolves 3 alone, once.
    ledger = ledger_after(3, ack(1), ack(2), ack(3, True))
    assert ledger.problems == [] and ledger.outstanding == []
    assert ledger.acked_once(3) and ledger.resolution[3] == ["ack(multiple 3)"]


def test_a_restarted_count_is_not_an_ack_of_the_next_number():
    ledger = ledger_after(3, ack(1), ack(2), ack(1))
    assert not ledger.acked_once(3) and ledger.outstanding == [3] and ledger.problems
