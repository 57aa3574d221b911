"""Each of the seven named rules' tests fails against a broker that breaks its rule:
the real RabbitMQ behind a proxy that rewrites its frames (tests/frame_rewriting_proxy.py),
and garagemq where it breaks a rule by itself (tests/test_suite_against_brokers.py)."""

import pytest

from fixtures.managed_brokers import RabbitMQNode
from tests.frame_rewriting_proxy import MUTATIONS, FrameRewritingProxy
from tests.suite_runs import run_suite

pytestmark = pytest.mark.integration

# mutation -> (the -k selection it runs, the rules whose tests must fail)
BROKEN_RULES = {
    "hide_precondition_failed": ("ack_03 or ack_04 or ack_05 or tx_01 or tx_02 or (con_10 and classic)",
                                 {"ACK-03", "ACK-04", "ACK-05", "TX-01", "TX-02", "CON-10"}),
    "clear_redelivered": ("rd_02 or mdl_01", {"RD-02", "MDL-01"}),
    "shift_confirm_tags": ("pc_02 or pc_04 or pc_05 or mdl_02", {"PC-02", "PC-04", "PC-05", "MDL-02"}),
    "duplicate_confirms": ("pc_04 or pc_05 or mdl_02", {"PC-04", "PC-05", "MDL-02"}),
}


@pytest.fixture(scope="module")
def rabbitmq():
    node = RabbitMQNode()
    node.start()
    yield node
    node.cleanup()


@pytest.mark.parametrize("mutation", BROKEN_RULES)
def test_rule_tests_fail_when_the_broker_breaks_the_rule(rabbitmq, tmp_path, mutation):
    selection, broken = BROKEN_RULES[mutation]
    target = rabbitmq.target
    with FrameRewritingProxy(target.host, target.port, MUTATIONS[mutation]) as proxy:
        run = run_suite(tmp_path, "--amqp-url", target.with_address("127.0.0.1", proxy.port).url,
                        "--consumer-timeout-ms", str(rabbitmq.consumer_timeout_ms), "-k", selection,
                        "-m", "not fault")  # the FLT-05 copies: tests/test_fault_rules.py
    outcome_by_rule = {}
    for case in run.cases:
        outcome_by_rule.setdefault(case.properties["rule"], set()).add(case.outcome)
    assert set(outcome_by_rule) == broken, run.output[-2000:]
    survivors = {rule for rule, outcomes in outcome_by_rule.items() if "fail" not in outcomes}
    assert not survivors, f"{mutation} breaks {sorted(survivors)} but their tests did not fail: {outcome_by_rule}"
