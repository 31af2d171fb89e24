"""Each PRIV check of the mem contract fires on a server that lets private text through
(``catalog/privacy.py``), and only on the rules it breaks; the mem reference passes them
all."""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.reference_impl.mem.server import Handlers

from ...conformance.mem.inprocess import run_against
from ..caught import Caught, Selecting, assert_caught, mem_rules
from .catalog.privacy import MUTANTS

PRIV = ("PRIV",)


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS, ids=[m.__name__ for m, _ in MUTANTS])
def test_mem_privacy_mutant_is_caught(
    tmp_path: Path, mutant: type[Handlers], caught: Caught, selecting: Selecting
) -> None:
    only = selecting(caught, PRIV)
    assert_caught(run_against(tmp_path, wiring_mutant=mutant, only=only), caught)


def test_every_priv_rule_has_a_mutant() -> None:
    assert {rule for _, caught in MUTANTS for rule in caught.broken} == set(mem_rules("PRIV"))


def test_the_mem_reference_passes_the_privacy_rules(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=PRIV)
    verdicts = {rule: v.verdict for rule, v in result.verdicts.items()}
    assert verdicts == dict.fromkeys(mem_rules("PRIV"), "pass")
