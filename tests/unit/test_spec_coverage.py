"""The map of the specification's own rules (conformance/spec_coverage.toml), the rule
modules' `source` citations and the specification agree: one entry per rule of the
machine-readable spec, every citation names an entry, every rule the map names has a
module, an unobservable entry says why and is judged by nothing, and the README and the
rules page state the current counts."""

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from amqp_conformance.fixtures.commands.catalogue import README, RULES_DOC, load_all_rules
from amqp_conformance.fixtures.commands.spec_coverage import (SPEC_RULE, SpecEntry, cited_spec_rules, spec_entries,
                                                              spec_map, summary)
from amqp_conformance.fixtures.core.rules import INFO, MUST, REGISTRY, SPEC, SPEC_AREAS, SHOULD, Rule

# The steering repository's copy of the specification, beside a checkout (CI lays it there too).
SPEC_XML = Path(__file__).resolve().parents[3] / "shared" / "research" / "amqp0-9-1.xml"

load_all_rules()
MAPPED = [entry["spec"] for entry in spec_map()]


def rules_of_the_specification(path: Path) -> list[str]:
    found = []

    def walk(node, names):
        for child in node:
            if child.tag == "rule":
                found.append(f"{'/'.join(names)} [{child.get('name')}]")
            elif child.tag == "domain":
                walk(child, [child.get("name")])
            elif child.tag in ("class", "method", "field"):
                walk(child, [*names, child.get("name")])

    walk(ET.parse(path).getroot(), [])
    return found


def test_the_map_has_one_entry_per_rule_of_the_specification():
    assert len(MAPPED) == len(set(MAPPED)) == 115
    if not SPEC_XML.exists():
        pytest.skip(f"the specification is not beside this checkout ({SPEC_XML.parent} missing)")
    assert MAPPED == rules_of_the_specification(SPEC_XML)


def test_every_citation_in_a_declaration_names_a_rule_of_the_map():
    unknown = {(r.id, cited) for r in REGISTRY.values() for cited in cited_spec_rules(r) if cited not in MAPPED}
    assert sorted(unknown) == []


def test_every_rule_of_the_specifications_areas_cites_a_rule_or_a_section():
    uncited = [r.id for r in REGISTRY.values() if r.area in SPEC_AREAS and not (r.guide == SPEC and r.source)]
    assert uncited == []


def test_checked_by_names_rules_with_modules_and_unobservable_entries_are_judged_by_nothing():
    for entry in spec_map():
        assert set(entry.get("checked_by", ())) <= set(REGISTRY), entry
    for entry in spec_entries():
        if entry.unobservable:
            assert not entry.rules, f"{entry.spec} is judged by {entry.rules} yet mapped unobservable"


def test_coverage_follows_the_strength_of_the_rules_that_judge_an_entry():
    def declared(rule_id, strength):
        REGISTRY.setdefault(rule_id, Rule(rule_id, "t", strength, SPEC, "s", source="x [y]"))

    declared("EX-98", SHOULD)
    declared("EX-99", INFO)
    try:
        assert SpecEntry("a [b]", ("EX-98", "EX-99")).coverage == "partial"
        assert SpecEntry("a [b]", ()).coverage == "unchecked"
        assert SpecEntry("a [b]", (), "a client duty").coverage == "unobservable"
        must = next(r.id for r in REGISTRY.values() if r.strength is MUST and not r.on_demand)
        assert SpecEntry("a [b]", ("EX-98", must)).coverage == "full"
    finally:
        REGISTRY.pop("EX-98"), REGISTRY.pop("EX-99")


def test_a_citation_is_recognised_among_sections_and_errata():
    cited = SPEC_RULE.findall("queue/declare/passive [passive]; PDF 4.2.3; ERRATA 14; basic [06], tx [not immediate]")
    assert [f"{path} [{name}]" for path, name in cited] == [
        "queue/declare/passive [passive]", "basic [06]", "tx [not immediate]"]


def test_the_readme_and_the_rules_page_state_the_current_counts():
    line = summary()
    for path in (README, RULES_DOC):
        assert line in path.read_text(), f"{path.name}: run python -m amqp_conformance.fixtures.commands.spec_coverage --update-docs"
