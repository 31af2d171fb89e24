"""Each PASS check of the mem contract fires on a server that breaks its rule
(``catalog/passive.py``), and only the rules it breaks; the mem reference passes them all.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.reference_impl.mem.server import Handlers

from ...conformance.mem.inprocess import run_against
from ..caught import Caught, Selecting, assert_caught, mem_rules
from .catalog.passive import MUTANTS

PASS = ("PASS",)


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS, ids=[m.__name__ for m, _ in MUTANTS])
def test_mem_passive_mutant_is_caught(
    tmp_path: Path, mutant: type[Handlers], caught: Caught, selecting: Selecting
) -> None:
    only = selecting(caught, PASS)
    assert_caught(run_against(tmp_path, wiring_mutant=mutant, only=only), caught)


def test_every_pass_rule_has_a_mutant() -> None:
    rules = set(mem_rules("PASS"))
    assert {rule for _, caught in MUTANTS for rule in caught.broken} == rules


def test_the_mem_reference_passes_the_passive_rules(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=PASS)
    rules = mem_rules("PASS")
    assert {rule: v.verdict for rule, v in result.verdicts.items()} == dict.fromkeys(rules, "pass")
