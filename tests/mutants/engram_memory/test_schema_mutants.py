"""Each SCHEMA and XREF check fires on a server that breaks its rule (``catalog/schema.py``), and
only the rules it breaks.

Every mutant wraps the reference service and gets one argument check wrong, the way real servers
do; the reference itself passes both families.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.spec.engram_memory import load

from ...conformance.inprocess import run_against
from ..caught import Caught, Selecting, assert_caught
from .base import ServiceProxy
from .catalog.schema import (
    LOOKED_UP_EMPTY,
    MUTANTS,
    RECONCILIATION_MUTANTS,
    EmptyCandidateIdLookedUp,
)
from .repairs import FAMILIES, consenting_to_the_examples_families


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS, ids=[m.__name__ for m, _ in MUTANTS])
def test_schema_mutant_is_caught(
    tmp_path: Path, mutant: type[ServiceProxy], caught: Caught, selecting: Selecting
) -> None:
    policies = consenting_to_the_examples_families() if mutant in RECONCILIATION_MUTANTS else {}
    only = selecting(caught, FAMILIES)
    result = run_against(tmp_path, service_mutant=mutant, only=only, **policies)
    assert_caught(result, caught)


def test_an_empty_candidate_id_looked_up_is_caught_as_an_order(tmp_path: Path) -> None:
    only = (*FAMILIES, "HOST-016")
    result = run_against(tmp_path, service_mutant=EmptyCandidateIdLookedUp, only=only)
    assert_caught(result, LOOKED_UP_EMPTY)


def test_reference_passes_the_schema_and_cross_reference_rules(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=FAMILIES)
    rules = {rule for rule in load().rules if rule.startswith(FAMILIES)}
    assert {rule: v.verdict for rule, v in result.verdicts.items()} == dict.fromkeys(rules, "pass")
