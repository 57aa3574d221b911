"""Integration: the catalogue against the real brokers the suite starts itself (one rule of
every area in ci/test, the whole catalogue in ci/mutation)."""

import pytest

from amqp_conformance.fixtures.brokers.garagemq import GarageMQ
from tests.suite_runs import SEVEN_RULES, representative_selection, run_suite

# Each runs the whole non-fault catalogue in a subprocess: longer than the 60 s default. The
# bounds are nets for a hang, not targets: the catalogue doubled with the specification's own
# rules (about 770 non-fault cases).
pytestmark = [pytest.mark.integration, pytest.mark.timeout(1000)]
CATALOGUE_NET_S = 900
# Each catalogue test runs twice over: on one rule of every area in ci/test (two workers do
# for 45 cases), and on the whole catalogue (marked `full`: ci/mutation runs it). The same
# assertions judge both.
CATALOGUE = [pytest.param((*representative_selection(), "-n", "2"), id="representative"),
             pytest.param(("-n", "4"), id="whole", marks=pytest.mark.full)]


@pytest.mark.parametrize("part", CATALOGUE)
def test_the_catalogue_on_the_default_rabbitmq_matches_its_baseline(tmp_path, part):
    run = run_suite(tmp_path, *part, "-m", "not fault",  # the fault part: tests/integration/test_fault_rules.py
                    timeout=CATALOGUE_NET_S)
    assert run.returncode == 0, run.output[-3000:]
    assert {c.properties["rule"] for c in run.cases} >= set(SEVEN_RULES)
    # Anything but pass/info must be a deviation the baseline already records, with its
    # reason (RabbitMQ 4.0.5 has one: QOS-10's raised per-consumer prefetch).
    unexplained = [(c.name, c.outcome) for c in run.cases
                   if c.outcome not in {"pass", "info"} and c.properties.get("deviation") != "known"]
    assert not unexplained, unexplained
    assert "broker under test: RabbitMQ 4.0.5 (managed rabbitmq-4.0)" in run.output
    print(f"catalogue on RabbitMQ: {run.seconds:.1f} s wall, {len(run.cases)} cases")


@pytest.mark.parametrize("part", CATALOGUE)
def test_garagemq_finishes_in_bounded_time_and_every_failure_explains_itself(tmp_path, part):
    # The raw verdicts, without garagemq's baseline (which would make known deviations exit 0).
    run = run_suite(tmp_path, "--broker", "garagemq", "--no-baseline", "-m", "not fault", *part,
                    timeout=CATALOGUE_NET_S)
    assert run.returncode == 1, run.output[-3000:]  # it breaks rules, so the run fails
    failed = [c for c in run.cases if c.failure is not None]
    assert failed, "garagemq breaks RD-02; a run where nothing fails cannot be right"
    for case in failed:
        assert case.properties.get("rule"), case.name
        assert case.properties.get("outcome") == "fail", (case.name, case.properties)
        # a rule's check says "expected: / actual:"; a hard error (a connection dropped without
        # connection.close) says what was expected and what was seen in the JUnit message
        assert ("expected:" in case.failure and "actual:" in case.failure
                or "expected " in case.failure and "; seen " in case.failure), case.failure[:500]
    outcomes = {c.name: c.outcome for c in run.cases}
    assert outcomes["test_unacked_deliveries_return_redelivered[tcp-reset]"] == "fail"
    assert outcomes["test_confirm_select_on_a_transactional_channel_closes_it"] == "unsupported"
    assert outcomes["test_settling_a_tag_twice_closes_the_channel[ack]"] == "non-strict"  # right code, other text
    # The acknowledgement model finds a real difference (ACK-07, RD-02, RD-03, ...) and shrinks it.
    assert outcomes["test_random_consumer_operations_agree_with_the_model"] == "fail"
    assert run.seconds < CATALOGUE_NET_S, run.seconds  # a hang detector (every wait is bounded), not a target


def test_no_password_reaches_output_junit_or_allure(tmp_path):
    with GarageMQ() as target:
        # Failing tests (garagemq breaks RD-02) attach frames and logs: the most to leak.
        run = run_suite(tmp_path, "--amqp-url", target.url, "-k", "ack_04 or rd_02")
    assert run.cases and any(c.failure for c in run.cases), run.output[-2000:]
    for name, text in {"output": run.output, **run.files}.items():
        assert target.password not in text, f"the password leaked into {name}"
