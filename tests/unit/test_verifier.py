"""The one close verifier: scope and code decide, the text is non-strict, and every
way a broker can fail to close is reported as expected-versus-actual."""

import asyncio
import re

import pytest

from amqp_conformance.fixtures.checking import verifiers
from amqp_conformance.fixtures.checking.verifiers import RuleViolation, expect_closed, expect_open
from amqp_conformance.fixtures.wire.dialogue import Closed, ConnectionLost, NoReply, Reply


class FakeChannel:
    """Stands in for a WireChannel: `barrier_does` is what the broker does on a barrier."""

    def __init__(self, closed_by_broker=None, barrier_does=None):
        self.closed_by_broker = closed_by_broker
        self.barrier_does = barrier_does

    async def barrier(self):
        if self.barrier_does is not None:
            raise self.barrier_does


PRECONDITION = Reply("channel", 406, "PRECONDITION_FAILED - unknown delivery tag 1")


def run(coro):
    verifiers.begin_test()
    return asyncio.run(coro)


def test_a_matching_close_passes_and_is_recorded():
    reply = run(expect_closed(FakeChannel(PRECONDITION), code=406, text="unknown delivery tag 1"))
    assert reply == PRECONDITION
    assert verifiers.current().observations["reply"] == str(PRECONDITION)
    assert verifiers.current().non_strict == []


def test_a_close_provoked_by_an_earlier_frame_is_found_by_the_barrier():
    assert run(expect_closed(FakeChannel(barrier_does=Closed(PRECONDITION)), code=406)) == PRECONDITION


def test_a_different_text_is_only_non_strict():
    other_text = Reply("channel", 406, "PRECONDITION_FAILED - Delivery tag [1] not found")
    run(expect_closed(FakeChannel(other_text), code=406, text="unknown delivery tag 1"))
    assert "Delivery tag [1] not found" in verifiers.current().non_strict[0]


def test_a_regex_text_is_searched():
    run(expect_closed(FakeChannel(PRECONDITION), code=406, text=re.compile(r"tag \d+")))
    assert verifiers.current().non_strict == []


@pytest.mark.parametrize("reply, shown", [
    (Reply("channel", 404, "NOT_FOUND"), "channel.close 404"),
    (Reply("connection", 406, "PRECONDITION_FAILED"), "connection.close 406"),
])
def test_a_wrong_code_or_scope_fails_with_expected_and_actual(reply, shown):
    with pytest.raises(RuleViolation) as broken:
        run(expect_closed(FakeChannel(reply), code=406, requirement="must close"))
    message = str(broken.value)
    assert "must close" in message and "expected: channel.close 406" in message and shown in message


@pytest.mark.parametrize("barrier_does, actual", [
    (None, "the channel stayed open"),
    (NoReply("no reply"), "no reply and no close"),
    (ConnectionLost("gone"), "TCP connection was dropped"),
])
def test_no_close_is_a_violation_that_says_what_happened(barrier_does, actual):
    with pytest.raises(RuleViolation, match=actual):
        run(expect_closed(FakeChannel(barrier_does=barrier_does), code=406))


def test_expect_open_fails_on_a_close():
    with pytest.raises(RuleViolation, match="406"):
        run(expect_open(FakeChannel(barrier_does=Closed(PRECONDITION)), "stays open"))
    run(expect_open(FakeChannel(), "stays open"))


def test_a_refused_management_request_is_unsupported_with_the_brokers_stated_reason():
    import io
    import urllib.error

    import pytest

    from amqp_conformance.fixtures.vocabulary.consumer_timeouts import stated_reason

    def refusal(body: bytes) -> urllib.error.HTTPError:
        return urllib.error.HTTPError("http://h/api/policies/%2F/p", 400, "Bad Request", {}, io.BytesIO(body))

    said = b'{"error":"bad_request","reason":"Validation failed\\n\\n[<<\\"consumer-timeout\\">>] are not recognised"}'
    assert stated_reason(refusal(said)).startswith("Validation failed") and "(bad_request)" in stated_reason(refusal(said))
    assert stated_reason(refusal(b"no JSON here")) == "no JSON here"
    assert stated_reason(refusal(b"")) == "400 Bad Request"
    with pytest.raises(pytest.skip.Exception, match="the broker's reason: Validation failed"):
        from unittest import mock

        from amqp_conformance.fixtures.vocabulary.consumer_timeouts import management_call
        with mock.patch("urllib.request.urlopen", side_effect=refusal(said)):
            management_call("http://user:pw@h:15672", "PUT", "/api/policies/%2F/p", {"pattern": "x"})


def test_a_refusal_the_guide_leaves_open_needs_a_close_and_judges_rabbitmqs_code_non_strict():
    from amqp_conformance.fixtures.checking.verifiers import expect_refused

    assert run(expect_refused(FakeChannel(PRECONDITION), code=406)) == PRECONDITION
    assert verifiers.current().non_strict == []
    run(expect_refused(FakeChannel(Reply("connection", 503, "COMMAND_INVALID")), code=406))
    assert "connection.close 503" in verifiers.current().non_strict[0]
    with pytest.raises(RuleViolation, match="the channel stayed open"):
        run(expect_refused(FakeChannel(), code=406, requirement="refused"))


@pytest.mark.parametrize("tags, verdict", [
    ("abab", "pass"), ("baba", "pass"),  # a fixed cycle, starting at either consumer
    ("abba", "non-strict"), ("aaab", "non-strict"), ("abbb", "non-strict"),  # uneven or out of turn: SHOULD
    ("aaaa", "fail"),  # one equal consumer starved: MUST
])
def test_equal_consumers_are_judged_by_what_they_got_the_same_way_every_time(tags, verdict):
    """CON-14, CON-17/equal-share and CON-28 read "round-robin" at one strength: the same
    deliveries get the same verdict (issue #27: non-strict in one run, fail in the next)."""
    from amqp_conformance.fixtures.vocabulary.consumers import expect_no_consumer_starves, expect_round_robin

    bodies = [b"m1", b"m2", b"m3", b"m4"]
    order = [(f"high-{tag}", body) for tag, body in zip(tags, bodies)]
    consumers = ["high-a", "high-b"]
    verifiers.begin_test()
    try:
        expect_no_consumer_starves(order, consumers, len(bodies))
        expect_round_robin(order, consumers, bodies)
    except RuleViolation:
        seen = "fail"
    else:
        seen = "non-strict" if verifiers.current().non_strict else "pass"
    assert seen == verdict
