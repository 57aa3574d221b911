"""The coverage map (conformance/coverage.toml) and the rule registry agree: every id a
statement names has a module, every rule module checks at least one statement, each
entry says how far it is covered in the map's own terms, and a statement is "full" only
when a MUST rule of the default run judges it (or a SHOULD one, where the guide hedges).
An entry that no source guide makes names its `source` and is counted apart."""

from amqp_conformance.fixtures.commands.catalogue import (COVERAGE_KINDS, COVERAGE_LINE, README, RULES_DOC,
                                                          can_judge, coverage_listing, coverage_statements,
                                                          coverage_summary, from_the_guides, load_all_rules)
from amqp_conformance.fixtures.core.rules import MUST, REGISTRY, RULE_ID, SHOULD, SPEC

load_all_rules()
STATEMENTS = coverage_statements()


def test_every_mapped_rule_has_a_module():
    named = {rule_id for statement in STATEMENTS for rule_id in statement["rules"]}
    assert sorted(named - set(REGISTRY)) == []


def test_every_rule_module_checks_a_statement():
    mapped = {rule_id for statement in STATEMENTS for rule_id in statement["rules"]}
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


def judges_whole(statement: dict) -> bool:
    """A MUST rule of the default run (not on demand) names the statement, or a SHOULD one
    does where the guide itself hedges (`hedged`)."""
    accepted = {MUST, SHOULD} if statement.get("hedged") else {MUST}
    return any(REGISTRY[r].strength in accepted and not REGISTRY[r].on_demand
               for r in statement["rules"] if r in REGISTRY)


def test_a_full_statement_is_judged_whole_in_the_default_run():
    # Only a SHOULD (where the guide does not hedge), an INFO figure or a -m perf rule
    # behind a statement leaves it partial, its gap said.
    not_judged = [statement["says"] for statement in STATEMENTS
                  if statement["coverage"] == "full" and not judges_whole(statement)]
    assert not_judged == []
    hedged_without_should = [statement["says"] for statement in STATEMENTS if statement.get("hedged")
                             and not any(REGISTRY[r].strength is SHOULD for r in statement["rules"] if r in REGISTRY)]
    assert hedged_without_should == []


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
