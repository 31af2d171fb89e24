"""Each DISC check of the mem contract fires on a server that breaks its rule
(``catalog/discovery.py``), and only the rules it breaks; the mem reference passes them all.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.reference_impl.mem.server import Handlers

from ...conformance.mem.inprocess import run_against
from ..caught import Caught, Selecting, assert_caught, mem_rules
from .catalog.discovery import MUTANTS

DISC = ("DISC",)


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS, ids=[m.__name__ for m, _ in MUTANTS])
def test_mem_discovery_mutant_is_caught(
    tmp_path: Path, mutant: type[Handlers], caught: Caught, selecting: Selecting
) -> None:
    only = selecting(caught, DISC)
    assert_caught(run_against(tmp_path, wiring_mutant=mutant, only=only), caught)


def test_every_disc_rule_has_a_mutant() -> None:
    testable = set(mem_rules("DISC"))
    assert {rule for _, caught in MUTANTS for rule in caught.broken} == testable


def test_the_mem_reference_passes_the_discovery_rules(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=DISC)
    disc = mem_rules("DISC")
    # like upstream, the reference publishes no outputSchema
    decided = dict.fromkeys(disc, "pass") | {"DISC-010": "not_applicable"}
    assert {rule: v.verdict for rule, v in result.verdicts.items()} == decided
    assert result.verdicts["DISC-004"].reason.startswith("widens v1.7.0")
