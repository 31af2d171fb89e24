"""Each CTX check of the mem contract fires on a server that breaks its rule
(``catalog/recall.py``), and only the rules it breaks; the mem reference passes them all.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.reference_impl.mem.server import Handlers

from ...conformance.mem.inprocess import run_against
from ..caught import Caught, Selecting, assert_caught, mem_rules
from .catalog.recall import MUTANTS

CTX = ("CTX",)


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS, ids=[m.__name__ for m, _ in MUTANTS])
def test_mem_recall_mutant_is_caught(
    tmp_path: Path, mutant: type[Handlers], caught: Caught, selecting: Selecting
) -> None:
    only = selecting(caught, CTX)
    assert_caught(run_against(tmp_path, wiring_mutant=mutant, only=only), caught)


def test_every_ctx_rule_has_a_mutant() -> None:
    rules = set(mem_rules("CTX"))
    assert {rule for _, caught in MUTANTS for rule in caught.broken} == rules


def test_the_mem_reference_passes_the_context_rules(tmp_path: Path) -> None:
    """CTX-003 passes too: the reference's mem_context lists max_bytes (upstream v2's)."""
    result = run_against(tmp_path, only=CTX)
    ctx = mem_rules("CTX")
    assert {rule: v.verdict for rule, v in result.verdicts.items()} == dict.fromkeys(ctx, "pass")
