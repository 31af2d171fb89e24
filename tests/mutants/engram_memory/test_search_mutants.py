"""Each search check fires on a server that breaks its rule (``catalog/search.py``), and no other
search rule breaks."""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.conformance.engram_memory.settings import Policy

from ...conformance.inprocess import run_against
from ..caught import Caught, Selecting, assert_caught
from .base import ServiceProxy
from .catalog.search import (
    FALLEN_BACK,
    LARGEST_BUDGET,
    MUTANTS,
    GetDefaultsToTheLargestBudget,
    SilentLexicalFallback,
)


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS, ids=[m.__name__ for m, _ in MUTANTS])
def test_search_mutant_is_caught(
    tmp_path: Path, mutant: type[ServiceProxy], caught: Caught, selecting: Selecting
) -> None:
    only = selecting(caught, ("SEARCH",))
    assert_caught(run_against(tmp_path, service_mutant=mutant, only=only), caught)


def test_get_defaulting_to_the_largest_budget_is_caught(tmp_path: Path) -> None:
    only = ("SCHEMA-015",)
    result = run_against(tmp_path, service_mutant=GetDefaultsToTheLargestBudget, only=only)
    assert_caught(result, LARGEST_BUDGET)


def test_silent_lexical_fallback_is_caught_without_a_declared_semantic_channel(
    tmp_path: Path,
) -> None:
    result = run_against(tmp_path, service_mutant=SilentLexicalFallback, only=("SEARCH-010",))
    assert_caught(result, FALLEN_BACK)


def test_a_declared_semantic_channel_may_answer_a_result(tmp_path: Path) -> None:
    result = run_against(
        tmp_path / "state",
        service_mutant=SilentLexicalFallback,
        target_policy=Policy(semantic_channel=True),
        only=("SEARCH-010",),
    )
    assert result.verdicts["SEARCH-010"].verdict == "pass"


def test_reference_passes_every_search_rule(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=("SEARCH",))
    assert {v.verdict for v in result.verdicts.values()} == {"pass"}, result.verdicts
