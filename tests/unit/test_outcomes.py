"""One outcome type, one result per case, one scrubber (amqp_conformance.fixtures.core.outcomes, amqp_conformance.fixtures.wire.target.mask_secrets),
and reports/ reads them without loading a pytest plugin."""

import json
import subprocess
import sys

from amqp_conformance.fixtures.plugin import SUITE_PLUGINS
from amqp_conformance.fixtures.core.outcomes import PASSING, CaseResult, Outcome, result_of
from amqp_conformance.fixtures.wire.target import mask_secrets
from tests.suite_runs import REPO




def test_outcomes_are_the_strings_junit_allure_and_baselines_carry():
    assert [str(o) for o in Outcome] == ["pass", "fail", "non-strict", "info", "unsupported", "error"]
    assert json.dumps({"outcome": Outcome.NON_STRICT}) == '{"outcome": "non-strict"}'
    assert f"{Outcome.UNSUPPORTED}" == "unsupported" and "info" in PASSING and "non-strict" not in PASSING


def test_a_case_result_crosses_to_the_controller_as_plain_data():
    result = CaseResult("ACK-04", "ACK-04/late[a]", Outcome.NON_STRICT,
                        observations={"reply": "channel.close 406"}, non_strict=["text differs"], evidence="why")
    data = result.as_dict()
    assert all(v is None or type(v) in (str, dict, list, float) for v in data.values())  # what execnet can send
    assert json.loads(json.dumps(data)) == data  # and what results.jsonl holds
    assert type(data["outcome"]) is str

    class Report:
        case_result = data
    again = result_of(Report())
    assert again == result and again.outcome is Outcome.NON_STRICT and again.name == "ACK-04/late[a]"
    assert result_of(object()) is None


def test_the_one_scrubber_hides_secrets_and_url_passwords():
    text = "amqp://guest:s3cret@host:5672/ said s3cret and passphrase pp1 ?password=x"
    shown = mask_secrets(text, ["s3cret", "pp1", "", "guest"], keep=("guest",))
    assert "s3cret" not in shown and "pp1" not in shown and "password=***" in shown
    assert "amqp://guest:***@host" in shown  # the user name, shown anyway, is kept


def test_reports_load_no_pytest_plugin():
    code = ("import sys, amqp_conformance.reports.allure_report, amqp_conformance.reports.site, amqp_conformance.reports.flips\n"
            f"print([m for m in {('amqp_conformance.fixtures.plugin', *SUITE_PLUGINS)!r} if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_connection_the_broker_dropped_is_a_failure_unless_the_test_injected_a_fault():
    from types import SimpleNamespace

    import pytest

    from amqp_conformance.fixtures.checking import verifiers
    from amqp_conformance.fixtures.core.rules import Rule, Strength
    from amqp_conformance.fixtures.checking.judge import Case
    from amqp_conformance.fixtures.checking.judge import outcome_of as judged
    from amqp_conformance.fixtures.wire.dialogue import ConnectionLost, NoReply

    class Item:
        def __init__(self, *markers):
            self.markers = markers

        def get_closest_marker(self, name):
            return name if name in self.markers else None

    def outcome_of(exception, *markers):
        report = SimpleNamespace(skipped=False, failed=True, passed=False, when="call")
        try:
            raise exception
        except type(exception):
            call = SimpleNamespace(excinfo=pytest.ExceptionInfo.from_current())
        record = verifiers.TestRecord()
        rule = Rule("QOS-10", "statement", Strength.SHOULD, "guide", "section")
        return judged(Case(Item(*markers), call, report, rule, record)), record.steps

    outcome, steps = outcome_of(ConnectionLost("connection lost while waiting for the reply to Channel.Open"))
    assert outcome is Outcome.FAIL and "ended the TCP connection" in steps[-1] and "Channel.Open" in steps[-1]
    assert outcome_of(ConnectionLost("cut"), "fault")[0] is Outcome.ERROR  # the suite's own cut, maybe
    assert outcome_of(NoReply("no reply"))[0] is Outcome.ERROR  # a silent broker is judged where it is awaited


def test_a_hard_error_of_the_broker_fails_even_an_info_rule_and_its_figure_stays():
    """541 INTERNAL_ERROR or a drop without connection.close fails the case whatever the
    rule's strength; 540 NOT_IMPLEMENTED is the specification's refusal, a recorded answer."""
    from types import SimpleNamespace

    from amqp_conformance.fixtures.checking import judge, verifiers
    from amqp_conformance.fixtures.core.rules import Rule, Strength
    from amqp_conformance.fixtures.checking.judge import Case
    from amqp_conformance.fixtures.checking.judge import outcome_of as judged
    from amqp_conformance.fixtures.wire.dialogue import Reply

    class Item:
        def __init__(self, *markers):
            self.markers = markers

        def get_closest_marker(self, name):
            return name if name in self.markers else None

    def outcome_of(*, closed=None, dropped=False, markers=()):
        record = verifiers.TestRecord(observations={"outcome seen": "refused: the close"})
        record.connections.append(SimpleNamespace(closed_by_broker=closed, dropped_by_broker=dropped))
        passed = SimpleNamespace(skipped=False, failed=False, passed=True, when="call")
        rule = Rule("RD-07", "statement", Strength.INFO, "guide", "section")
        return judged(Case(Item(*markers), SimpleNamespace(excinfo=None), passed, rule, record)), record

    crashed = Reply("connection", 541, "INTERNAL_ERROR", 60, 110)
    outcome, record = outcome_of(closed=crashed)
    assert outcome is Outcome.FAIL and "541 INTERNAL_ERROR" in record.steps[-1]
    assert "class 60, method 110" in record.steps[-1] and record.observations["outcome seen"]
    # The fail says what was required, expected and seen, though the test raised nothing (RD-07 by URL).
    broken = record.violation
    assert broken.requirement == judge.HARD_ERROR_REQUIREMENT and "541" in broken.actual and broken.expected
    assert outcome_of(dropped=True)[0] is Outcome.FAIL
    assert "without connection.close" in outcome_of(dropped=True)[1].steps[-1]
    assert outcome_of(closed=Reply("connection", 540, "NOT_IMPLEMENTED", 60, 110))[0] is Outcome.INFO
    assert outcome_of(closed=Reply("channel", 406, "PRECONDITION_FAILED"))[0] is Outcome.INFO
    assert outcome_of(closed=crashed, markers=("fault",))[0] is Outcome.INFO  # under a fault, maybe the suite's cut
    # A probe that crashed the connection is no evidence of a missing feature.
    record = verifiers.TestRecord()
    record.connections.append(SimpleNamespace(closed_by_broker=crashed, dropped_by_broker=False))
    skipped = SimpleNamespace(skipped=True, failed=False, passed=False, when="call", longrepr=("f", 1, "unsupported: no recover"))
    rule = Rule("RD-06", "statement", Strength.MUST, "guide", "section")
    assert judged(Case(Item(), SimpleNamespace(excinfo=None), skipped, rule, record)) is Outcome.FAIL


def test_the_verdicts_carry_fields_and_unsupported_is_a_type_not_a_text():
    import pickle
    from types import SimpleNamespace

    import pytest

    from amqp_conformance.fixtures.checking import verifiers
    from amqp_conformance.fixtures.core.rules import Rule, Strength
    from amqp_conformance.fixtures.checking.judge import Case
    from amqp_conformance.fixtures.checking.judge import outcome_of as judged

    broken = verifiers.violation("acking twice closes the channel", "channel.close 406", "channel open")
    assert (broken.requirement, broken.expected, broken.actual) == (
        "acking twice closes the channel", "channel.close 406", "channel open")
    assert "expected: channel.close 406" in str(broken)  # the terminal still shows them
    again = pickle.loads(pickle.dumps(broken))
    assert (again.expected, again.actual, str(again)) == (broken.expected, broken.actual, str(broken))
    finding = verifiers.NonStrict("reply text differs", expected="'x'", actual="'y'")
    assert finding == "reply text differs" and type(str(finding)) is str and finding.actual == "'y'"

    def outcome_of(exception):
        try:
            raise exception
        except BaseException:  # noqa: BLE001 - a skip is a BaseException
            call = SimpleNamespace(excinfo=pytest.ExceptionInfo.from_current())
        report = SimpleNamespace(skipped=True, failed=False, passed=False, when="call", longrepr=("f", 1, "Skipped: whatever"))
        rule = Rule("RD-06", "statement", Strength.MUST, "guide", "section")
        return judged(Case(SimpleNamespace(get_closest_marker=lambda _: None), call, report, rule,
                               verifiers.TestRecord()))

    assert outcome_of(verifiers.Unsupported("no basic.recover", "540 NOT_IMPLEMENTED")) is Outcome.UNSUPPORTED
    # the words alone decide nothing: a plain skip saying "unsupported:" is a skip
    assert outcome_of(pytest.skip.Exception("unsupported: no basic.recover")) == "skipped"
    try:
        verifiers.unsupported("no recover", "540")
    except verifiers.Unsupported:
        shown = pytest.ExceptionInfo.from_current().exconly(tryshort=True)
    assert shown == "Skipped: unsupported: no recover [540]"  # reads as any skip in the terminal
