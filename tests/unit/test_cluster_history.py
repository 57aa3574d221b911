"""Verdict power of the CLU rules: cluster histories the way the rules record them, with
one thing broken each (a confirmed message never delivered after the heal, a confirm
from the isolated side, a repeated delivery without redelivered=true), must fail the
judgements the CLU modules make; the unbroken history must pass them."""

import pytest

from amqp_conformance.fixtures.vocabulary.cluster import confirmed_while
from amqp_conformance.fixtures.vocabulary.history import expect_none
from amqp_conformance.fixtures.checking.history import check_history
from amqp_conformance.fixtures.checking.verifiers import RuleViolation


def partition_history(*, deliver_all=True, minority_confirmed=False, flag_redelivery=True):
    """CLU-03's shape: before the cut 2 confirmed messages; during it the isolated
    node's publisher (connection 2) sends 1 message and the majority's (connection 3)
    1, which is confirmed; after the heal a consumer drains (automatic ack)."""
    t = iter(range(1000))
    ev = lambda kind, **f: {"t": float(next(t)), "kind": kind, **f}  # noqa: E731
    events = [ev("publish", seq=n, message_id=f"before-{n}", channel=1, connection=1, persistent=True)
              for n in (1, 2)]
    events += [ev("confirm", seq=2, multiple=True, ack=True, channel=1, connection=1),
               ev("fault", name="partition", phase="applied", detail="n1 cut"),
               ev("publish", seq=1, message_id="minority-1", channel=1, connection=2, persistent=True),
               ev("publish", seq=1, message_id="majority-1", channel=1, connection=3, persistent=True),
               ev("confirm", seq=1, multiple=False, ack=True, channel=1, connection=3)]
    if minority_confirmed:
        events.append(ev("confirm", seq=1, multiple=False, ack=True, channel=1, connection=2))
    events.append(ev("fault", name="partition", phase="removed", detail="healed"))
    delivered = ["before-1", "before-2", "majority-1"] if deliver_all else ["before-1", "majority-1"]
    for tag, mid in enumerate(delivered, 1):
        events.append(ev("deliver", message_id=mid, delivery_tag=tag, redelivered=False, consumer="drain",
                         channel=1, connection=4, no_ack=True))
    events.append(ev("deliver", message_id="before-1", delivery_tag=9, redelivered=flag_redelivery,
                     consumer="drain", channel=1, connection=4, no_ack=True))
    return events


def judge(events):
    """What CLU-03 judges, in its order."""
    verdict = check_history(events, fault="partition", queue_type="quorum")
    if confirmed_while(events, {"minority-1"}, "partition"):
        raise RuleViolation("the isolated node confirmed")
    expect_none(verdict, "lost", "every confirmed message is delivered after the heal")
    expect_none(verdict, "unflagged_redeliveries", "a message delivered again carries redelivered=true")


def test_the_unbroken_history_passes():
    judge(partition_history())


def test_a_confirmed_message_missing_after_the_heal_fails():
    with pytest.raises(RuleViolation, match="lost: before-2"):
        judge(partition_history(deliver_all=False))


def test_a_confirm_from_the_isolated_side_fails():
    with pytest.raises(RuleViolation, match="isolated node confirmed"):
        judge(partition_history(minority_confirmed=True))


def test_a_confirm_after_the_heal_is_not_a_minority_confirm():
    events = partition_history()
    events.append({"t": 999.0, "kind": "confirm", "seq": 1, "multiple": False, "ack": True, "channel": 1,
                   "connection": 2})
    assert confirmed_while(events, {"minority-1"}, "partition") == []


def test_an_unflagged_repeated_delivery_fails():
    with pytest.raises(RuleViolation, match="unflagged redeliveries: before-1"):
        judge(partition_history(flag_redelivery=False))
