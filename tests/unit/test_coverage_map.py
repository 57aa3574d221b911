"""The coverage map (conformance/coverage.toml) and the rule registry agree: every id a
statement names has a module, every rule module checks at least one statement, each
entry says how far it is covered in the map's own terms, and a statement is "full" only
when every case it names is a MUST of the default run: its `rules` (all their cases, or
those its `cases` narrows them to) judge the whole statement, and whatever only records
or hedges beside them is named under `beside`, never counted. A test of the test shows a
"full" backed by a SHOULD, an INFO figure, an on-demand case or a case that does not
exist is refused. An entry that no source guide makes names its `source` and is counted
apart."""

import importlib
import inspect

import pytest

from amqp_conformance.fixtures.commands.catalogue import (COVERAGE_KINDS, COVERAGE_LINE, README, RULES_DOC,
                                                          can_judge, coverage_listing, coverage_statements,
                                                          coverage_summary, from_the_guides, load_all_rules)
from amqp_conformance.fixtures.core.rules import (AREAS, CONFORMANCE_DIR, MUST, REGISTRY, RULE_ID, SPEC,
                                                  module_name)
from amqp_conformance.fixtures.plugin.collection import ON_DEMAND_MARKERS

load_all_rules()
STATEMENTS = coverage_statements()


def named(statement: dict) -> list[str]:
    """Every id an entry names: the rules that judge it and those beside them."""
    return [*statement["rules"], *statement.get("beside", ())]


def test_every_mapped_rule_has_a_module():
    mapped = {rule_id for statement in STATEMENTS for rule_id in named(statement)}
    assert sorted(mapped - set(REGISTRY)) == []


def test_every_rule_module_checks_a_statement():
    mapped = {rule_id for statement in STATEMENTS for rule_id in named(statement)}
    # a model check (MDL-*) is mapped through the rules it covers; a rule of the
    # specification through the spec rules its declaration cites (`source`)
    unmapped = {r.id for r in REGISTRY.values()
                if r.id not in mapped and not set(r.covers) & mapped and not (r.guide == SPEC and r.source)}
    assert sorted(unmapped) == []


def test_every_entry_says_how_far_it_is_covered():
    for statement in STATEMENTS:
        assert statement["coverage"] in COVERAGE_KINDS, statement
        assert statement["guide"] and statement["section"] and statement["says"], statement
        if statement["coverage"] in ("full", "partial"):
            assert statement["rules"], statement
        if statement["coverage"] == "partial":
            assert statement.get("gap"), statement
        if statement["coverage"] == "none":
            assert not statement["rules"] and statement.get("planned"), statement
        if statement["coverage"] == "out-of-reach":
            assert statement.get("reason"), statement
        for planned in statement.get("planned", ()):
            assert RULE_ID.match(planned) and planned not in REGISTRY, f"{planned} has a module: map it in rules"
        if not from_the_guides(statement):
            assert statement["source"] and statement["rules"], statement


def test_a_full_statement_has_a_rule_that_can_fail():
    # A statement backed only by INFO rules (measured, never judged) is at most partial.
    only_recorded = [statement["says"] for statement in STATEMENTS
                     if statement["coverage"] == "full" and not can_judge(statement["rules"])]
    assert only_recorded == []
    # and a rule named beside the judging ones is not one of them
    assert [statement["says"] for statement in STATEMENTS
            if set(statement["rules"]) & set(statement.get("beside", ()))] == []


def cases_of(rule_id: str) -> dict[str | None, set[str]]:
    """A rule's cases (the `case` marker of each test function; None for a module with one
    case) and the markers each carries, its module's included: read from the module, not
    from a pytest collection."""
    folder = CONFORMANCE_DIR / AREAS[RULE_ID.match(rule_id)["area"]][0]
    cases: dict[str | None, set[str]] = {}
    for path in sorted(folder.glob(f"test_{rule_id.lower().replace('-', '_')}_*.py")):
        module = importlib.import_module(module_name(path))
        module_marks = getattr(module, "pytestmark", [])
        module_marks = module_marks if isinstance(module_marks, list) else [module_marks]
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if name.startswith("test_"):
                marks = [*module_marks, *getattr(function, "pytestmark", [])]
                case = next((mark.args[0] for mark in marks if mark.name == "case"), None)
                cases.setdefault(case, set()).update(mark.name for mark in marks)
    return cases


def not_judged_whole(statement: dict) -> list[str]:
    """Why a "full" entry's named cases do not judge its statement whole in the default
    run (empty: they do): each rule it names under `rules` must be a MUST that runs by
    default, and so must each of its cases the entry claims (all of them, or those its
    `cases` names, each of which must exist)."""
    problems = [] if statement["rules"] else ["it names no rule"]
    narrowed = statement.get("cases", {})
    problems += [f"`cases` narrows {rule_id}, which it does not name under `rules`"
                 for rule_id in sorted(set(narrowed) - set(statement["rules"]))]
    for rule_id in statement["rules"]:
        declared = REGISTRY.get(rule_id)
        if declared is None:
            problems.append(f"{rule_id} has no module")
            continue
        if declared.strength is not MUST:
            problems.append(f"{rule_id} is {declared.strength.value.upper()}, not MUST: name it under `beside`")
        if declared.on_demand:
            problems.append(f"{rule_id} runs only on demand")
        cases = cases_of(rule_id)
        for case in narrowed.get(rule_id, list(cases)):
            if case not in cases:
                problems.append(f"{rule_id} has no case {case!r} (its cases: {sorted(map(str, cases))})")
            elif cases[case] & set(ON_DEMAND_MARKERS):
                problems.append(f"{rule_id}[{case}] runs only on demand: narrow `cases` to those that do not")
    return problems


def test_a_full_statement_is_judged_whole_by_the_cases_it_names():
    # Only a SHOULD, an INFO figure or an on-demand case behind a statement leaves it
    # partial, its gap said; a rule that records beside a full statement is under `beside`.
    not_judged = {statement["says"]: problems for statement in STATEMENTS
                  if statement["coverage"] == "full" and (problems := not_judged_whole(statement))}
    assert not_judged == {}


def test_hedging_is_no_longer_a_way_to_full():
    # A guide's "may" or "if possible" leaves nothing a MUST can judge: such a statement is
    # partial, its gap says so. The `hedged` key that let a SHOULD stand for it is gone.
    assert [statement["says"] for statement in STATEMENTS if "hedged" in statement] == []


FULL = {"guide": "CONSUMERS", "section": "priority", "says": "a statement", "coverage": "full"}


@pytest.mark.parametrize("entry, problem", [
    ({**FULL, "rules": ["CON-14"]}, "CON-14 is SHOULD"),
    ({**FULL, "rules": ["CON-28", "CON-14"]}, "CON-14 is SHOULD"),
    ({**FULL, "rules": ["CON-32"]}, "CON-32 is INFO"),
    ({**FULL, "rules": ["PERF-01"]}, "PERF-01 runs only on demand"),
    ({**FULL, "rules": ["CON-24"]}, "CON-24[default] runs only on demand"),
    ({**FULL, "rules": ["CON-24"], "cases": {"CON-24": ["default"]}}, "CON-24[default] runs only on demand"),
    ({**FULL, "rules": ["CON-24"], "cases": {"CON-24": ["of"]}}, "CON-24 has no case 'of'"),
    ({**FULL, "rules": ["CON-28"], "cases": {"CON-24": ["off"]}}, "`cases` narrows CON-24"),
    ({**FULL, "rules": []}, "it names no rule"),
], ids=["should-only", "should-beside-must", "info", "on-demand-rule", "on-demand-case", "on-demand-case-named",
        "no-such-case", "narrowing-an-unnamed-rule", "no-rule"])
def test_the_map_test_refuses_a_full_statement_its_cases_cannot_judge(entry, problem):
    assert any(problem in found for found in not_judged_whole(entry)), not_judged_whole(entry)


@pytest.mark.parametrize("entry", [
    {**FULL, "rules": ["CON-28"], "beside": ["CON-14"]},
    {**FULL, "rules": ["CON-24"], "cases": {"CON-24": ["off"]}},
], ids=["should-beside", "default-run-case"])
def test_the_map_test_takes_a_full_statement_its_must_cases_judge(entry):
    assert not_judged_whole(entry) == []


def test_the_listing_names_every_statement_and_ends_with_the_counts():
    listing = coverage_listing()
    assert all(statement["says"] in listing for statement in STATEMENTS)
    from_the_sources = [statement for statement in STATEMENTS if from_the_guides(statement)]
    counts = listing.splitlines()[-1]
    assert counts.startswith(f"{len(from_the_sources)} statements of the guides: ")
    assert f"; {len(STATEMENTS) - len(from_the_sources)} more entries from outside the guides" in counts


def test_the_readme_and_the_rules_page_state_the_current_counts_once():
    # `python -m amqp_conformance.fixtures.commands.catalogue --update-docs` rewrites this line
    for document in (README, RULES_DOC):
        assert COVERAGE_LINE.findall(document.read_text()) == [coverage_summary() + "."], document.name
