"""Rules and checks trace to each other both ways, in every registered contract: no untested
testable rule, no check of a rule that does not exist, and no rule decided only by accident."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from engram_conformance.conformance import contracts
from engram_conformance.conformance.check_registry import Checks


def deciders(checks: Checks) -> dict[str, list[str]]:
    """Rule -> the checks that decide it."""
    found: dict[str, list[str]] = {}
    for check in [*checks.scripted.values(), *checks.per_call.values()]:
        for rule in check.rules:
            found.setdefault(rule, []).append(check.id)
    return found


def unknown_rules(rules: Mapping[str, Any], decided: Mapping[str, list[str]]) -> list[str]:
    return [
        f"{checks} decide {rule}, not a rule"
        for rule, checks in decided.items()
        if rule not in rules
    ]


def untested_rules(rules: Mapping[str, Any], decided: Mapping[str, list[str]]) -> list[str]:
    return [rule.id for rule in rules.values() if rule.testable and rule.id not in decided]


def decided_untestable(rules: Mapping[str, Any], decided: Mapping[str, list[str]]) -> list[str]:
    return [rule for rule in decided if rule in rules and not rules[rule].testable]


def traced(name: str) -> tuple[Mapping[str, Any], dict[str, list[str]]]:
    contract = contracts.contract(name)
    return contract.load_spec().rules, deciders(contract.checks())


@pytest.mark.parametrize("name", contracts.names())
def test_every_check_names_rules_that_exist(name: str) -> None:
    assert unknown_rules(*traced(name)) == []


@pytest.mark.parametrize("name", contracts.names())
def test_every_testable_rule_has_a_check(name: str) -> None:
    assert untested_rules(*traced(name)) == [], "testable rules no check decides"


@pytest.mark.parametrize("name", contracts.names())
def test_no_check_decides_an_untestable_rule(name: str) -> None:
    assert decided_untestable(*traced(name)) == []


def test_a_broken_trace_is_caught() -> None:
    class Rule:
        def __init__(self, id_: str, testable: bool) -> None:
            self.id, self.testable = id_, testable

    rules = {"R-1": Rule("R-1", True), "R-2": Rule("R-2", True), "R-3": Rule("R-3", False)}
    decided = {"R-1": ["one"], "R-3": ["three"], "R-9": ["nine"]}
    assert unknown_rules(rules, decided) == ["['nine'] decide R-9, not a rule"]
    assert untested_rules(rules, decided) == ["R-2"]
    assert decided_untestable(rules, decided) == ["R-3"]
