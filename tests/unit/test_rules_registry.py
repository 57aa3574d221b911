"""The rule registry: declarations, validation, and what reports key on."""

import pytest

from fixtures.rules import CONFIRMS, INFO, MUST, REGISTRY, RuleDeclarationError, rule


def test_a_declared_rule_is_registered_with_its_link_marker_and_keyword():
    declared = rule("ACK-99", "A test rule", strength=MUST, guide=CONFIRMS, section="some-anchor")
    try:
        assert REGISTRY["ACK-99"] is declared
        assert declared.link == "https://www.rabbitmq.com/docs/confirms#some-anchor"
        assert declared.area_marker == "consumer_acks"
        assert declared.keyword == "ack_99"
        assert declared.strength.allure_severity == "critical"
    finally:
        del REGISTRY["ACK-99"]


def test_declaring_the_same_rule_again_identically_is_allowed():
    first = rule("PC-98", "Same", strength=INFO, guide=CONFIRMS, section="x")
    try:
        assert rule("PC-98", "Same", strength=INFO, guide=CONFIRMS, section="x") == first
    finally:
        del REGISTRY["PC-98"]


def test_one_id_declared_two_ways_is_an_error():
    rule("PC-97", "One", strength=INFO, guide=CONFIRMS, section="x")
    try:
        with pytest.raises(RuleDeclarationError, match="declared twice"):
            rule("PC-97", "Another", strength=MUST, guide=CONFIRMS, section="x")
    finally:
        del REGISTRY["PC-97"]


@pytest.mark.parametrize("rule_id", ["ACK-3", "ack-03", "XYZ-01", "ACK03", ""])
def test_ids_outside_the_catalogue_shape_are_refused(rule_id):
    with pytest.raises(RuleDeclarationError):
        rule(rule_id, "t", strength=MUST, guide=CONFIRMS, section="x")


def test_strength_and_section_are_checked():
    with pytest.raises(RuleDeclarationError):
        rule("TX-90", "t", strength="must", guide=CONFIRMS, section="x")
    with pytest.raises(RuleDeclarationError):
        rule("TX-90", "t", strength=MUST, guide=CONFIRMS, section="#x")


def test_the_rule_table_of_docs_rules_is_the_registry():
    import subprocess
    import sys

    from fixtures.catalogue import README, RULES_DOC, generated_table

    # A process of its own: tests here (and elsewhere) register throwaway rules.
    printed = subprocess.run([sys.executable, "-m", "fixtures.catalogue"], cwd=README.parent,
                             capture_output=True, text=True, timeout=60, check=True).stdout
    assert generated_table(RULES_DOC.read_text()) == printed.strip(), \
        "docs/rules.md's rule table is stale: run .venv/bin/python -m fixtures.catalogue --update-docs"
    assert "(docs/rules.md)" in README.read_text(), "the README links the rule table"


def test_the_reference_accepts_table_is_the_registry():
    import subprocess
    import sys

    from fixtures.catalogue import ACCEPTS_BLOCK, README, REFERENCE, generated_table

    printed = subprocess.run([sys.executable, "-m", "fixtures.catalogue", "--accepts"], cwd=README.parent,
                             capture_output=True, text=True, timeout=60, check=True).stdout
    assert generated_table(REFERENCE.read_text(), ACCEPTS_BLOCK) == printed.strip(), \
        "docs/reference.md's requires/accepts table is stale: run .venv/bin/python -m fixtures.catalogue --update-docs"


def test_a_rule_accepts_what_it_declares_or_what_its_strength_accepts():
    from fixtures.rules import ACCEPTED_BY_STRENGTH, Rule

    plain = Rule("RD-90", "t", INFO, CONFIRMS, "x")
    assert plain.accepted == ACCEPTED_BY_STRENGTH[INFO]
    assert Rule("RD-91", "t", MUST, CONFIRMS, "x", accepts="ack(3) either way").accepted == "ack(3) either way"
