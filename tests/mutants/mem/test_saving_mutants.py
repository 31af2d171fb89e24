"""Each SAVE check of the mem contract fires on a server that breaks its rule
(``catalog/saving.py``), and only the rules it breaks; the mem reference passes them all.

SAVE-008 (a restart of the server) and SAVE-013 (several server processes on one data folder)
are decided by the harness over stdio, not in process (``test_restart_mutants.py``,
``test_writers_mutants.py``), so the runs select the other SAVE rules by id.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.reference_impl.mem.server import Handlers

from ...conformance.mem.inprocess import run_against
from ..caught import Caught, Selecting, assert_caught, mem_rules
from .catalog.saving import MUTANTS

#: the SAVE rules left to the harness over stdio (a restart, several processes)
OVER_STDIO = ("SAVE-008", "SAVE-013")
SAVE = tuple(rule for rule in mem_rules("SAVE") if rule not in OVER_STDIO)


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS, ids=[m.__name__ for m, _ in MUTANTS])
def test_mem_saving_mutant_is_caught(
    tmp_path: Path, mutant: type[Handlers], caught: Caught, selecting: Selecting
) -> None:
    only = selecting(caught, SAVE)
    assert_caught(run_against(tmp_path, wiring_mutant=mutant, only=only), caught)


def test_every_checked_save_rule_has_a_mutant() -> None:
    assert {rule for _, caught in MUTANTS for rule in caught.broken} == set(SAVE)


def test_the_mem_reference_passes_the_saving_rules(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=SAVE)
    assert {rule: v.verdict for rule, v in result.verdicts.items()} == dict.fromkeys(SAVE, "pass")
