"""The rule registry: declarations, validation, and what reports key on."""

import pytest

from amqp_conformance.fixtures.core.rules import CONFIRMS, INFO, MUST, REGISTRY, RuleDeclarationError, rule


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

    from amqp_conformance.fixtures.commands.catalogue import README, RULES_DOC, generated_table

    # A process of its own: tests here (and elsewhere) register throwaway rules.
    printed = subprocess.run([sys.executable, "-m", "amqp_conformance.fixtures.commands.catalogue"], cwd=README.parent,
                             capture_output=True, text=True, timeout=60, check=True).stdout
    assert generated_table(RULES_DOC.read_text()) == printed.strip(), \
        "docs/rules.md's rule table is stale: run .venv/bin/python -m amqp_conformance.fixtures.commands.catalogue --update-docs"
    assert "(docs/rules.md)" in README.read_text(), "the README links the rule table"


def test_the_reference_accepts_table_is_the_registry():
    import subprocess
    import sys

    from amqp_conformance.fixtures.commands.catalogue import ACCEPTS_BLOCK, README, REFERENCE, generated_table

    printed = subprocess.run([sys.executable, "-m", "amqp_conformance.fixtures.commands.catalogue", "--accepts"], cwd=README.parent,
                             capture_output=True, text=True, timeout=60, check=True).stdout
    assert generated_table(REFERENCE.read_text(), ACCEPTS_BLOCK) == printed.strip(), \
        "docs/reference.md's requires/accepts table is stale: run .venv/bin/python -m amqp_conformance.fixtures.commands.catalogue --update-docs"


def test_a_rule_accepts_what_it_declares_or_what_its_strength_accepts():
    from amqp_conformance.fixtures.core.rules import ACCEPTED_BY_STRENGTH, Rule

    plain = Rule("RD-90", "t", INFO, CONFIRMS, "x")
    assert plain.accepted == ACCEPTED_BY_STRENGTH[INFO]
    assert Rule("RD-91", "t", MUST, CONFIRMS, "x", accepts="ack(3) either way").accepted == "ack(3) either way"


@pytest.mark.parametrize(("rule_id", "strength", "on_demand", "flt05_copies"), [
    ("ACK-96", MUST, False, True), ("QOS-96", INFO, False, False), ("CON-96", MUST, False, False),
    ("PERF-96", INFO, True, False)])
def test_on_demand_and_flt05_copies_default_to_what_the_area_is(rule_id, strength, on_demand, flt05_copies):
    declared = rule(rule_id, "t", strength=strength, guide=CONFIRMS, section="x")
    try:
        assert (declared.on_demand, declared.flt05_copies, declared.timing_dependent) == \
            (on_demand, flt05_copies, False)
    finally:
        del REGISTRY[rule_id]


def test_a_declaration_may_say_otherwise_than_its_area():
    declared = rule("PC-96", "t", strength=MUST, guide=CONFIRMS, section="x", timing_dependent=True,
                    on_demand=True, flt05_copies=False)
    try:
        assert (declared.on_demand, declared.flt05_copies, declared.timing_dependent) == (True, False, True)
    finally:
        del REGISTRY["PC-96"]


def test_a_declaration_not_yet_imported_is_loaded_from_its_module():
    import subprocess
    import sys

    from amqp_conformance.fixtures.commands.catalogue import README
    from amqp_conformance.fixtures.core.rules import declaration_of

    # A process of its own, as a run that selected none of CON-13's cases: nothing imported it yet.
    loaded = subprocess.run([sys.executable, "-c", "from amqp_conformance.fixtures.core.rules import REGISTRY, declaration_of; "
                             "declared = declaration_of('CON-13'); "
                             "print(sorted(REGISTRY), declared.strength.value, declared.timing_dependent)"],
                            cwd=README.parent, capture_output=True, text=True, timeout=60, check=True).stdout
    assert loaded.split() == ["['CON-13']", "info", "True"]
    with pytest.raises(RuleDeclarationError, match="no conformance module"):
        declaration_of("CON-99")


def test_the_models_weigh_a_difference_by_its_rules_declaration():
    from amqp_conformance.fixtures.models import ack_model
    from amqp_conformance.fixtures.core.rules import declaration_of

    assert {r: ack_model.strength(r) for r in ack_model.COVERS} == \
        {r: declaration_of(r).strength.value for r in ack_model.COVERS}
    assert ack_model.strength("ACK-01") == "must" and ack_model.strength("ACK-01-contiguous") == "info"


def test_an_unknown_need_is_refused():
    with pytest.raises(RuleDeclarationError, match="known needs"):
        rule("TX-90", "t", strength=MUST, guide=CONFIRMS, section="x", needs=("kubernetes",))


@pytest.mark.parametrize(("need", "uses"), [("restart", ("crashable_broker",)),
                                            ("managed-node", ("node_setting", "queue_process_killer"))])
def test_a_rule_whose_cases_take_what_only_a_managed_broker_offers_declares_the_need(need, uses):
    from amqp_conformance.fixtures.commands.catalogue import load_all_rules
    from amqp_conformance.fixtures.core.rules import CONFORMANCE_DIR

    load_all_rules()
    taking = {path.stem for path in CONFORMANCE_DIR.rglob("test_*.py") if any(use in path.read_text() for use in uses)}
    declaring = {f"test_{r.keyword}" for r in REGISTRY.values() if need in r.needs}
    assert {stem for stem in taking if not any(stem.startswith(d + "_") for d in declaring)} == set()
    assert {d for d in declaring if not any(stem.startswith(d + "_") for stem in taking)} == set()
