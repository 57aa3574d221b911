"""The model runner without a broker: a toy machine with a known bug shows that a
failure is shrunk, keeps its own steps and seed, and that SHOULD differences are
non-strict, reported once."""

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, rule

from amqp_conformance.fixtures.checking import verifiers
from amqp_conformance.fixtures.models.runner import ModelOptions, ModelProfile, run_machine
from amqp_conformance.fixtures.core.rules import CONFIRMS, MUST, RuleDeclarationError, Strength
from amqp_conformance.fixtures.checking import judge
from amqp_conformance.fixtures.core.rules import rule as declare


class FakeBroker:
    target = None

    def name(self, kind="q"):
        return f"fake-{kind}"


class CounterMachine(RuleBasedStateMachine):
    """The 'broker' loses count at 3: the model says the counter is what was added."""

    def __init__(self, journal):
        super().__init__()
        self.journal, self.count = journal, 0
        journal.begin_example()

    @rule(amount=st.integers(0, 2))
    def add(self, amount):
        self.journal.step(f"add {amount}")
        self.count += amount
        if self.count >= 3:
            self.journal.difference("RD-05", "must", "the counter keeps count", self.count, self.count - 1)

    @rule()
    def odd_order(self):
        self.journal.step("odd order")
        self.journal.difference("RQ-05", "should", "order is kept", "1, 2", "2, 1")


PROFILE = ModelProfile("test", max_examples=200, steps=10, time_net=60.0, shrink_bound=5.0, chunk=50)


def test_a_must_difference_fails_with_the_shrunk_steps_and_a_seed():
    verifiers.begin_test()
    with pytest.raises(verifiers.RuleViolation) as failure:
        run_machine(FakeBroker(), CounterMachine, options=ModelOptions(PROFILE, seed=7))
    notes = "\n".join(failure.value.__notes__)
    assert "RD-05: the counter keeps count" in str(failure.value)
    assert "--model-seed" in notes and "reproduce_failure" in notes
    shrunk = verifiers.current().attachments["shrunk steps"]
    assert shrunk.count(". add") == 2 and "odd order" not in shrunk, shrunk  # two adds reach 3, nothing else
    assert "! RD-05 (MUST)" in shrunk


def test_a_should_difference_is_non_strict_and_reported_once():
    class OrderOnly(CounterMachine):
        add = None  # only odd_order remains

    verifiers.begin_test()
    run_machine(FakeBroker(), OrderOnly, options=ModelOptions(PROFILE, seed=1))
    assert [finding.weight for finding in verifiers.current().non_strict] == [Strength.SHOULD]
    judge.weigh_findings(verifiers.current())  # the judge's: non-strict
    assert len(verifiers.current().non_strict) == 1
    assert verifiers.current().observations["model profile"] == "test"


def test_a_model_check_names_the_rules_it_covers():
    declared = declare("MDL-99", "a model check", strength=MUST, guide=CONFIRMS, section="publisher-confirms",
                       covers=["PC-04", "PC-05"])
    assert declared.covers == ("PC-04", "PC-05") and declared.area_marker == "model"
    with pytest.raises(RuleDeclarationError):
        declare("MDL-98", "a model check", strength=MUST, guide=CONFIRMS, section="x", covers=["PC-4"])
