"""A part of a rule's statement a check could not decide (an answer no layer reads, an argument
the server does not publish) makes the rule not applicable, never ``pass``; a failure found
elsewhere still counts, and a harness exception is the kit's error with its traceback."""

from __future__ import annotations

import pytest
from engram_conformance.conformance.check_context import Undecided
from engram_conformance.conformance.executor import kit_traceback
from engram_conformance.conformance.ledger import Failure, Ledger
from engram_conformance.spec.mem import load

RULE = load().rules["SAVE-001"]


def test_an_undecided_part_makes_the_rule_not_applicable_whatever_passed() -> None:
    ledger = Ledger()
    ledger.passed(RULE.id, "one_check")
    ledger.unchecked(RULE.id, "other_check", "not decided: the answer of mem_save cannot be read")
    verdict = ledger.verdict(RULE)
    assert verdict.verdict == "not_applicable"
    assert verdict.reason == (
        "not decided: the answer of mem_save cannot be read (1 other part(s) passed)"
    )


@pytest.mark.parametrize("other", ["failure", "error"])
def test_a_failure_or_error_elsewhere_outweighs_an_undecided_part(other: str) -> None:
    ledger = Ledger()
    ledger.unchecked(RULE.id, "one_check", "not decided: no project argument")
    if other == "failure":
        ledger.failed(RULE.id, Failure("other_check", "a memory saved", "isError"))
    else:
        ledger.errored(RULE.id, "other_check", "the check could not go on")
    assert ledger.verdict(RULE).verdict == ("fail" if other == "failure" else "error")


def test_a_tool_not_applicable_never_hides_an_error_on_another() -> None:
    """A rule that speaks of a class of tools says per tool which are not applicable; an error
    on a tool it did test is still the rule's verdict."""
    ledger = Ledger()
    ledger.inapplicable(RULE.id, "one_check", "mem_judge: not listed")
    assert ledger.verdict(RULE).verdict == "not_applicable"
    ledger.errored(RULE.id, "one_check", "the check could not go on")
    assert ledger.verdict(RULE).verdict == "error"


def test_undecided_names_the_rules_it_leaves() -> None:
    raised = Undecided("no project argument", ("SAVE-001",))
    assert (str(raised), raised.rules) == ("no project argument", ("SAVE-001",))


def test_a_harness_error_carries_its_innermost_frames() -> None:
    def innermost() -> None:
        raise TypeError("a bug of the kit")

    try:
        innermost()
    except TypeError as error:
        shown = kit_traceback(error)
    assert shown.startswith("Traceback") and "innermost" in shown
    assert shown.endswith("TypeError: a bug of the kit")
