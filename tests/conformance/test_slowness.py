"""``slowness``: a report's timing warnings are let through only when every failure of their
rule is a late answer, and never for a rule whose verdict the test pins."""

from __future__ import annotations

from dataclasses import replace

from engram_conformance.reports import ReportDocument

from ..reports.documents import small
from .slowness import late_only, without_late_warnings

WARNED = "SEARCH-004"  # a warn of the small document, its failure not a late answer


def _late(expected: str = "a phrase answered within 2000 ms") -> ReportDocument:
    document = ReportDocument.from_dict(small())
    rules = {rule.id: rule for rule in document.rules}
    failure = replace(rules[WARNED].failures[0], expected=expected, observed="answered in 2500 ms")
    late = replace(rules[WARNED], failures=(failure, failure))
    return replace(document, rules=tuple(late if r.id == WARNED else r for r in document.rules))


def _ids(document: ReportDocument, pinned: tuple[str, ...] = ()) -> set[str]:
    return {rule.id for rule in without_late_warnings(document.rules, pinned)}


def test_a_warning_of_late_answers_only_is_let_through() -> None:
    document = _late()
    assert [rule.id for rule in document.rules if late_only(rule)] == [WARNED]
    assert _ids(document) == {rule.id for rule in document.rules} - {WARNED}


def test_a_warning_with_another_failure_stays() -> None:
    document = ReportDocument.from_dict(small())
    assert not any(late_only(rule) for rule in document.rules)
    assert _ids(document) == {rule.id for rule in document.rules}
    mixed = _late()
    rule = next(rule for rule in mixed.rules if rule.id == WARNED)
    other = replace(rule.failures[0], expected="scores in descending order")
    rule = replace(rule, failures=(rule.failures[0], other))
    assert not late_only(rule)


def test_a_pinned_rule_stays_whatever_its_failures() -> None:
    assert WARNED in _ids(_late(), pinned=(WARNED,))
