"""Each JUDGE check of the mem contract fires on a server that breaks its rule
(``catalog/judging.py``), and only the rules it breaks; the mem reference passes them all
(JUDGE-003, a judgement of meaning, is not testable), and a server whose mem_judge lists no
judgment_id and relation gets JUDGE-004 and JUDGE-005 not applicable."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from engram_conformance.conformance.mem.plugin import CONTRACT
from engram_conformance.reference_impl.mem.server import Handlers

from ...conformance.mem.inprocess import run_against
from ..caught import Caught, Selecting, assert_caught
from .catalog.discovery import WiringMutant
from .catalog.judging import MUTANTS

JUDGE = ("JUDGE",)
#: the rules that need upstream's verdict arguments
VERDICT_RULES = ("JUDGE-004", "JUDGE-005")


class ListsTheSeedJudgeOnly(WiringMutant):
    """mem_judge publishes only the seed's form: ids, no judgment_id or relation."""

    def altered(self, tools: dict[str, dict[str, Any]]) -> None:
        properties = tools["mem_judge"]["inputSchema"]["properties"]
        for name in ("judgment_id", "relation"):
            del properties[name]


def _judge_rules() -> dict[str, Any]:
    rules = CONTRACT.load_spec().rules.values()
    return {rule.id: rule for rule in rules if rule.family == "JUDGE"}


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS, ids=[m.__name__ for m, _ in MUTANTS])
def test_mem_judging_mutant_is_caught(
    tmp_path: Path, mutant: type[Handlers], caught: Caught, selecting: Selecting
) -> None:
    only = selecting(caught, JUDGE)
    assert_caught(run_against(tmp_path, wiring_mutant=mutant, only=only), caught)


def test_every_checked_judge_rule_has_a_mutant() -> None:
    testable = {rule for rule, spec in _judge_rules().items() if spec.testable}
    assert {rule for _, caught in MUTANTS for rule in caught.broken} == testable


def test_the_mem_reference_passes_the_judge_rules(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=JUDGE)
    rules = _judge_rules()
    expected = {rule: "pass" if spec.testable else "not_applicable" for rule, spec in rules.items()}
    assert {rule: v.verdict for rule, v in result.verdicts.items()} == expected
    untestable = result.verdicts["JUDGE-003"].reason or ""
    assert untestable.startswith("not testable from outside a server: Whether two texts")


def test_verdict_rules_are_not_applicable_without_their_arguments(tmp_path: Path) -> None:
    result = run_against(tmp_path, wiring_mutant=ListsTheSeedJudgeOnly, only=JUDGE)
    why = "mem_judge's input schema lists no judgment_id, relation"
    for rule in VERDICT_RULES:
        assert (result.verdicts[rule].verdict, result.verdicts[rule].reason) == (
            "not_applicable",
            why,
        )
    assert {result.verdicts[rule].verdict for rule in ("JUDGE-001", "JUDGE-002")} == {"pass"}
