"""The message-history checker on hand-written histories: each kind of violation is
found and named by message id or sequence number, multiple=true ranges are expanded,
the watermark is enforced, and a clean history yields nothing."""

from amqp_conformance.fixtures.vocabulary.history import History
from amqp_conformance.fixtures.checking.history import check_history
from amqp_conformance.fixtures.checking.verifiers import RuleViolation
from amqp_conformance.fixtures.vocabulary.history import expect_none

import pytest

T = iter(range(1, 10 ** 6))


def ev(kind, **fields):
    fields.setdefault("connection", 1)
    fields.setdefault("channel", 1)
    return {"t": float(next(T)), "kind": kind, **fields}


def publish(seq, mid, **kw):
    return ev("publish", seq=seq, message_id=mid, persistent=True, **kw)


def confirm(seq, multiple=False, ack=True, **kw):
    return ev("confirm", seq=seq, multiple=multiple, ack=ack, **kw)


def deliver(mid, tag, redelivered=False, connection=2, no_ack=False, channel=1):
    return ev("deliver", message_id=mid, delivery_tag=tag, redelivered=redelivered, consumer="c",
              connection=connection, channel=channel, no_ack=no_ack)


def ack(tag, multiple=False, connection=2, channel=1):
    return ev("ack", delivery_tag=tag, multiple=multiple, requeue=None, connection=connection, channel=channel)


def lost_connection(connection=2):
    return ev("close", scope="connection", code=0, text="lost", by="lost", connection=connection, channel=0)


def published_and_confirmed(*mids):
    events = [publish(n, mid) for n, mid in enumerate(mids, 1)]
    return events + [confirm(len(mids), multiple=True)]


def test_a_clean_history_has_no_findings():
    events = published_and_confirmed("a", "b") + [deliver("a", 1), deliver("b", 2), ack(2, multiple=True)]
    verdict = check_history(events)
    assert (verdict.published, verdict.confirmed, verdict.delivered) == (2, 2, 2)
    for field in ("lost", "unexpected", "duplicated", "recovered", "unflagged_redeliveries",
                  "double_resolutions", "watermark_violations", "not_redelivered", "acked_redelivered"):
        assert getattr(verdict, field) == [], field


def test_a_confirmed_message_never_settled_is_lost():
    events = published_and_confirmed("a", "b") + [deliver("a", 1), ack(1)]
    assert check_history(events).lost == ["b"]


def test_a_delivery_never_acked_does_not_count_as_consumed():
    events = published_and_confirmed("a") + [deliver("a", 1)]
    assert check_history(events).lost == ["a"]


def test_an_automatic_ack_delivery_settles_the_message():
    events = published_and_confirmed("a") + [deliver("a", 1, no_ack=True)]
    assert check_history(events).lost == []


def test_a_message_never_published_is_unexpected():
    events = published_and_confirmed("a") + [deliver("a", 1, no_ack=True), deliver("ghost", 2, no_ack=True)]
    assert check_history(events).unexpected == ["ghost"]


def test_a_message_settled_twice_is_duplicated():
    events = published_and_confirmed("a") + [deliver("a", 1), ack(1), deliver("a", 2, redelivered=True), ack(2)]
    verdict = check_history(events)
    assert verdict.duplicated == ["a"] and verdict.acked_redelivered == ["a"]
    assert verdict.unflagged_redeliveries == []


def test_an_unconfirmed_message_that_arrives_is_recovered():
    events = [publish(1, "a"), publish(2, "b"), confirm(1)] + [deliver("a", 1, no_ack=True),
                                                               deliver("b", 2, no_ack=True)]
    verdict = check_history(events)
    assert verdict.recovered == ["b"] and verdict.lost == []


def test_a_second_delivery_without_the_flag_is_an_unflagged_redelivery():
    events = published_and_confirmed("a", "b") + [
        deliver("a", 1), deliver("b", 2), lost_connection(),
        deliver("a", 1, redelivered=True, connection=3, no_ack=True),
        deliver("b", 2, redelivered=False, connection=3, no_ack=True)]
    verdict = check_history(events)
    assert verdict.unflagged_redeliveries == ["b"]
    assert verdict.not_redelivered == [] and verdict.lost == []


def test_a_flagged_delivery_on_another_connection_does_not_order_an_unflagged_one():
    """A flagged and an unflagged delivery of one message on two connections: the
    broker's order is unknown (the recorder's, or a proxy's, is not the broker's), so no
    finding, whether recorded 1 ms or 1 s apart; on one connection the order is TCP's,
    and the later unflagged one is a finding."""
    flagged = deliver("a", 9, redelivered=True, connection=3, no_ack=True)
    unflagged = deliver("a", 4, connection=2, no_ack=True)
    for gap in (0.001, 1.0):
        unflagged["t"] = flagged["t"] + gap
        assert check_history(published_and_confirmed("a") + [flagged, unflagged]).unflagged_redeliveries == []
    same_connection = dict(unflagged, connection=3, t=flagged["t"] + 0.001)
    assert check_history(published_and_confirmed("a") + [flagged, same_connection]).unflagged_redeliveries == ["a"]
    # Two unflagged deliveries of one message are a finding in either order (garagemq's
    # FLT-04: its first redelivery carries no flag, on a new connection moments later).
    first = deliver("a", 1, connection=2, no_ack=True)
    second = dict(first, connection=3, t=first["t"] + 0.001)
    assert check_history(published_and_confirmed("a") + [first, second]).unflagged_redeliveries == ["a"]
    assert check_history(published_and_confirmed("a") + [first, flagged, second]).unflagged_redeliveries == ["a"]


def test_a_message_published_twice_may_be_delivered_twice_unflagged():
    events = [publish(1, "a"), publish(2, "a"), confirm(2, multiple=True),
              deliver("a", 1, no_ack=True), deliver("a", 2, no_ack=True)]
    verdict = check_history(events)
    assert verdict.unflagged_redeliveries == [] and verdict.duplicated == []


def test_an_unacked_delivery_of_a_cut_consumer_that_never_returns_is_not_redelivered():
    events = published_and_confirmed("a", "b") + [deliver("a", 1), deliver("b", 2), ack(1), lost_connection(),
                                                  deliver("a", 1, redelivered=True, connection=3, no_ack=True)]
    verdict = check_history(events)
    assert verdict.not_redelivered == ["b"] and verdict.lost == ["b"]


def test_a_redelivery_that_comes_before_the_client_notices_the_cut_counts():
    # A silent peer: the broker requeues long before the client sees its connection end.
    events = published_and_confirmed("a") + [deliver("a", 1),
                                             deliver("a", 1, redelivered=True, connection=3, no_ack=True),
                                             lost_connection()]
    assert check_history(events).not_redelivered == []


def test_nack_with_requeue_releases_and_without_requeue_settles():
    events = published_and_confirmed("a", "b") + [
        deliver("a", 1), deliver("b", 2),
        ev("nack", delivery_tag=1, multiple=False, requeue=True, connection=2),
        ev("reject", delivery_tag=2, multiple=False, requeue=False, connection=2)]
    verdict = check_history(events)
    assert verdict.not_redelivered == ["a"] and verdict.lost == ["a"]


def test_a_multiple_ack_with_tag_zero_settles_everything_outstanding():
    events = published_and_confirmed("a", "b", "c") + [deliver("a", 1), deliver("b", 2), deliver("c", 3),
                                                       ack(0, multiple=True)]
    assert check_history(events).lost == []


def test_multiple_confirms_expand_over_outstanding_numbers_only():
    events = [publish(n, mid) for n, mid in enumerate("abcd", 1)] + [
        confirm(2), confirm(3, multiple=True, ack=False), confirm(4)]
    verdict = check_history(events)
    # 1 and 3 nacked by the range, 2 acked alone, 4 acked: nothing resolved twice.
    assert verdict.confirmed == 2 and verdict.nacked == 2
    assert verdict.double_resolutions == [] and verdict.watermark_violations == []


def test_a_number_resolved_twice_or_both_ways_is_a_double_resolution():
    events = [publish(1, "a"), publish(2, "b"), confirm(1), confirm(1, ack=False), confirm(2), confirm(2)]
    assert check_history(events).double_resolutions == [1, 2]


def test_a_confirm_at_or_below_the_watermark_is_a_violation():
    events = [publish(n, mid) for n, mid in enumerate("abcde", 1)] + [confirm(2), confirm(4, multiple=True),
                                                                    confirm(3)]
    verdict = check_history(events)
    assert verdict.watermark_violations == [3] and 3 in verdict.double_resolutions


def test_a_confirm_for_a_number_never_published_is_unknown():
    events = [publish(1, "a"), confirm(1), confirm(7)]
    assert check_history(events).unknown_confirms == [7]


def test_confirms_are_kept_apart_per_connection_and_channel():
    events = [publish(1, "a", connection=1), publish(1, "b", connection=5),
              confirm(1, connection=1), confirm(1, connection=5)]
    verdict = check_history(events)
    assert verdict.confirmed == 2 and verdict.double_resolutions == []


def test_detection_latency_runs_from_the_fault_to_the_first_redelivery_or_loss():
    events = published_and_confirmed("a") + [deliver("a", 1)]
    events.append({"t": 100.0, "kind": "fault", "name": "down", "phase": "applied", "detail": ""})
    events.append({**deliver("a", 1, redelivered=True, connection=3, no_ack=True), "t": 101.25})
    assert check_history(events).detection_latency_s == 1.25


def test_expect_none_names_the_offending_ids():
    verdict = check_history(published_and_confirmed("a", "b"))
    with pytest.raises(RuleViolation, match=r"lost: a, b"):
        expect_none(verdict, "lost", "every confirmed message is delivered")


def test_a_check_the_history_never_exercised_passes_and_says_so():
    from amqp_conformance.fixtures.checking import verifiers

    single_confirms = [publish(1, "a"), publish(2, "b"), confirm(1), confirm(2), deliver("a", 1), deliver("b", 2)]
    record = verifiers.begin_test()
    verdict = check_history(single_confirms)
    expect_none(verdict, "watermark_violations", "no confirm at or below the watermark")
    expect_none(verdict, "unflagged_redeliveries", "a repeated delivery is flagged")
    assert "the watermark was not tested" in record.observations[verifiers.NOT_EXERCISED]
    assert "delivered twice" in record.observations[verifiers.NOT_EXERCISED]
    record = verifiers.begin_test()
    expect_none(check_history(published_and_confirmed("a", "b")), "watermark_violations", "exercised")
    assert verifiers.NOT_EXERCISED not in record.observations


def test_the_report_forms_follow_the_contract():
    recorded = History(fault="down")
    recorded.events.extend(published_and_confirmed("a"))
    verdict = recorded.check()
    keys = {"fault", "queue_type", "published", "confirmed", "delivered", "lost", "unexpected", "duplicated",
            "recovered", "unflagged_redeliveries", "double_resolutions", "watermark_violations",
            "detection_latency_s"}
    assert keys <= set(verdict.to_json())
    assert ("history_lost", "1") in verdict.junit_properties()
    assert all(line.startswith('{"t": ') for line in recorded.jsonl().splitlines())


class _Connection:
    def __init__(self):
        self.frame_listeners = []

    def feed(self, direction, channel, frame):
        for listener in self.frame_listeners:
            listener(direction, channel, frame)


def test_the_recorder_turns_frames_into_events_and_skips_a_delivery_cut_mid_body():
    from pamqp import commands as spec
    from pamqp.body import ContentBody
    from pamqp.header import ContentHeader

    recorded = History()
    wire = recorded.watch(_Connection())
    props = spec.Basic.Properties(message_id="a", delivery_mode=2)
    wire.feed("->", 1, spec.Confirm.Select())
    wire.feed("<-", 1, spec.Confirm.SelectOk())
    wire.feed("->", 1, spec.Basic.Publish(routing_key="q"))
    wire.feed("->", 1, ContentHeader(0, 4, props))
    wire.feed("->", 1, ContentBody(b"abcd"))
    wire.feed("<-", 1, spec.Basic.Ack(delivery_tag=1, multiple=False))
    wire.feed("->", 2, spec.Basic.Consume(queue="q", no_ack=False))
    wire.feed("<-", 2, spec.Basic.ConsumeOk(consumer_tag="c1"))
    wire.feed("<-", 2, spec.Basic.Deliver(consumer_tag="c1", delivery_tag=1, routing_key="q"))
    wire.feed("<-", 2, ContentHeader(0, 4, props))
    wire.feed("<-", 2, ContentBody(b"abcd"))
    wire.feed("<-", 2, spec.Basic.Deliver(consumer_tag="c1", delivery_tag=2, redelivered=True, routing_key="q"))
    wire.feed("<-", 2, ContentHeader(0, 4, props))
    wire.feed("<-", 2, ContentBody(b"ab"))  # cut here
    wire.feed("lost", 0, None)
    kinds = [(e["kind"], e.get("seq") or e.get("delivery_tag") or e.get("by")) for e in recorded.events]
    assert kinds == [("publish", 1), ("confirm", 1), ("deliver", 1), ("close", "lost")]
    assert recorded.confirmed_ids() == {"a"}
    assert check_history(recorded.events).not_redelivered == ["a"]
