"""``broken_arguments``: each object breaks exactly its labelled rule, and every rule the spec's
examples label can be broken."""

from __future__ import annotations

import pytest
from engram_conformance.spec.engram_memory import Spec, utf16_key, validate_arguments
from engram_conformance.strategies.engram_memory import Broken, broken_arguments, broken_from
from engram_conformance.strategies.engram_memory.broken_arguments import breakages
from hypothesis import find, given

from .profile import CAPTURE, LARGE_REPR, SEARCH, SETTINGS, TOOLS

pytestmark = pytest.mark.filterwarnings(LARGE_REPR)


def _answer(tool: str, broken: Broken, **clock: object) -> tuple[str | None, str | None, str]:
    verdict = validate_arguments(tool, broken.arguments, **clock)
    return verdict.code, verdict.rule, verdict.pointer


@pytest.mark.parametrize("tool", TOOLS)
def test_every_broken_object_is_answered_its_label(tool: str) -> None:
    @SETTINGS
    @given(broken_arguments(tool))
    def answered(broken: Broken) -> None:
        assert _answer(tool, broken) == (broken.code, broken.rule, broken.pointer), broken
        without_clock = validate_arguments(tool, broken.arguments, clock=None)
        assert without_clock.ok == broken.clock_dependent

    answered()


@pytest.mark.parametrize("tool", TOOLS)
def test_every_rule_the_examples_label_can_be_broken(spec: Spec, tool: str) -> None:
    """From the spec's own valid examples, each rule of its invalid ones (and the size bound)."""
    examples = [example for example in spec.examples if example.tool == tool]
    offered = {}  # rule -> the first valid example that can be broken by it
    for example in (example for example in examples if example.valid):
        for breakage in breakages(spec, tool, example.arguments):
            offered.setdefault(breakage.rule, example.arguments)
    rules = {example.rule for example in examples if not example.valid} | {"SCHEMA-009"}
    assert rules <= set(offered), sorted(rules - set(offered))
    for rule in sorted(rules):
        strategy = broken_from(tool, offered[rule], spec, rules={rule})
        broken = find(strategy, lambda broken: True, settings=SEARCH)
        assert _answer(tool, broken) == (broken.code, rule, broken.pointer), broken


def test_a_purpose_string_is_answered_first_by_the_purpose_check() -> None:
    broken = find(
        broken_arguments("engram_memory_search"),
        lambda broken: broken.pointer == "/purpose_ref",
        settings=SEARCH,
    )
    assert (broken.answered_first_by is not None) == isinstance(
        broken.arguments.get("purpose_ref"), str
    )


def test_the_clock_breakage_is_labelled_clock_dependent(spec: Spec) -> None:
    minimal = next(e for e in spec.examples if e.tool == CAPTURE and e.valid).arguments
    broken = find(broken_from(CAPTURE, minimal, spec, rules={"RET-004"}), bool, settings=SEARCH)
    assert broken.clock_dependent
    assert broken.pointer == "/payload/retention/expires_at"
    assert validate_arguments(CAPTURE, broken.arguments, clock=None).ok


def _family_refs(broken: Broken) -> list[str]:
    return broken.arguments["payload"]["reconciliation"]["family_refs"]


def test_the_two_order_rules_of_family_refs_are_told_apart(spec: Spec) -> None:
    """Out of order under every usual order is XREF-009's; sorted by code points but not by
    UTF-16 code units (the order the spec decides) is XREF-011's."""
    full = next(e for e in spec.examples if e.tool == CAPTURE and e.name == "full").arguments
    swapped = find(
        broken_from(CAPTURE, full, spec, rules={"XREF-009"}),
        lambda broken: len(set(_family_refs(broken))) == len(_family_refs(broken)),
        settings=SEARCH,
    )
    assert _family_refs(swapped) != sorted(_family_refs(swapped))
    disputed = find(broken_from(CAPTURE, full, spec, rules={"XREF-011"}), bool, settings=SEARCH)
    items = _family_refs(disputed)
    assert items == sorted(items) and items != sorted(items, key=utf16_key)
    for broken in (swapped, disputed):
        assert _answer(CAPTURE, broken) == (broken.code, broken.rule, broken.pointer), broken
