"""Every labelled example of the spec's examples is classified by validate_arguments as labelled."""

from __future__ import annotations

import pytest
from engram_conformance.spec.engram_memory import Example, load, validate_arguments

EXAMPLES = load().examples


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"{e.tool}:{e.name}" for e in EXAMPLES])
def test_example_is_classified_as_labelled(example: Example) -> None:
    verdict = validate_arguments(example.tool, example.arguments)
    if example.valid:
        assert verdict.ok, verdict
        return
    assert (verdict.code, verdict.rule, verdict.pointer) == (
        example.code,
        example.rule,
        example.pointer,
    )
    assert (
        validate_arguments(example.tool, example.arguments, clock=None).ok
        == example.clock_dependent
    )


def test_every_tool_has_valid_and_invalid_examples() -> None:
    spec = load()
    for tool in spec.tools:
        kinds = {example.valid for example in EXAMPLES if example.tool == tool}
        assert kinds == {True, False}, tool


def test_every_argument_rule_has_an_invalid_example() -> None:
    """Each rule the argument schemas decide is shown broken by at least one example."""
    spec = load()
    decided = {rule for rule in spec.rules if rule.startswith(("SCHEMA-", "XREF-"))}
    # built by the checks (the 1 MiB bound, the order of checks, nothing written), shown only by
    # valid examples (zero fractions, empty maxima, several bounds at once), or the code of the
    # row any invalid example's answer shows, or the cost of the largest valid arguments
    not_by_example = {
        "SCHEMA-009",
        "SCHEMA-011",
        "SCHEMA-033",
        "SCHEMA-035",
        "SCHEMA-037",
        "SCHEMA-038",
        "SCHEMA-039",
        "SCHEMA-040",
        "XREF-010",
    }
    shown = {example.rule for example in EXAMPLES if not example.valid}
    assert decided - not_by_example <= shown
