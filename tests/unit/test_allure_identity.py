"""What makes a case its own Allure test: parameter values that are the same in every run
and different for every case (fixtures/plugin/run_store.py, fixtures/plugin/case_records.py)."""

from __future__ import annotations

from dataclasses import dataclass

from amqp_conformance.fixtures.plugin.allure_sink import case_history_id
from amqp_conformance.fixtures.plugin.allure_sink import stable_value


def lose_cleanly():
    pass


@dataclass
class Cut:
    name: str
    fault: object


@dataclass
class Parameter:
    name: str
    value: str
    excluded: bool | None = None


def test_values_with_addresses_are_shown_by_name_or_by_the_case_id():
    assert stable_value("'quorum'", "quorum") is None and stable_value(3, "3") is None  # already stable
    assert stable_value(lose_cleanly, "clean-close") == "lose_cleanly"
    assert stable_value(Cut("reset-peer", lose_cleanly), "reset-peer") == "reset-peer"
    # lambdas all have the name "<lambda>": six FLT-01 cases once shared one Allure test
    lambdas = {case: stable_value(lambda: None, case) for case in ("down", "slicer")}
    assert lambdas == {"down": "<lambda> [down]", "slicer": "<lambda> [slicer]"}
    assert " at 0x" not in stable_value(object(), "x")


def test_history_id_depends_on_the_case_parameters_only():
    name = "conformance.x.test_ack_04#test_double_ack"
    base = case_history_id(name, [])
    copy = case_history_id(name, [Parameter("fault profile", "'latency'")])
    assert base != copy != case_history_id(name, [Parameter("fault profile", "'slicer'")])
    assert copy == case_history_id(name, [Parameter("fault profile", "'latency'"),
                                          Parameter("reply", "'406'", excluded=True)])
