"""Rules and checks trace to each other both ways: no untested testable rule, no check of a
rule that does not exist, and no rule decided only by accident."""

from __future__ import annotations

from engram_conformance.conformance.engram_memory.checks.registry import all_checks, all_per_call
from engram_conformance.spec.engram_memory import load


def deciders() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for check in [*all_checks().values(), *all_per_call().values()]:
        for rule in check.rules:
            found.setdefault(rule, []).append(check.id)
    return found


def test_every_check_names_rules_that_exist() -> None:
    rules = set(load().rules)
    for rule, checks in deciders().items():
        assert rule in rules, (
            f"{checks} decide {rule}, which spec/engram_memory/rules.json does not have"
        )


def test_every_testable_rule_has_a_check() -> None:
    decided = deciders()
    untested = [
        rule.id for rule in load().rules.values() if rule.testable and rule.id not in decided
    ]
    assert untested == [], f"testable rules no check decides: {untested}"


def test_no_check_decides_an_untestable_rule() -> None:
    rules = load().rules
    claimed = [rule for rule in deciders() if rule in rules and not rules[rule].testable]
    assert claimed == []
