"""Each ERR check of the mem contract fires on a server that answers failures, unknown tools or
bad arguments wrong (``catalog/errors.py``), and only on the rules it breaks; the mem
reference passes them all."""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.reference_impl.mem.server import Handlers

from ...conformance.mem.inprocess import run_against
from ..caught import Caught, Selecting, assert_caught, mem_rules
from .catalog.errors import MUTANTS, NullQueryHangs

ERR = ("ERR",)


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS, ids=[m.__name__ for m, _ in MUTANTS])
def test_mem_errors_mutant_is_caught(
    tmp_path: Path, mutant: type[Handlers], caught: Caught, selecting: Selecting
) -> None:
    only = selecting(caught, ERR)
    assert_caught(run_against(tmp_path, wiring_mutant=mutant, only=only), caught)


def test_every_err_rule_has_a_mutant() -> None:
    assert {rule for _, caught in MUTANTS for rule in caught.broken} == set(mem_rules("ERR"))


def test_the_mem_reference_passes_the_error_rules(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=ERR)
    verdicts = {rule: v.verdict for rule, v in result.verdicts.items()}
    assert verdicts == dict.fromkeys(mem_rules("ERR"), "pass")


def test_a_bad_call_left_unanswered_charges_its_case_and_the_check_goes_on(
    tmp_path: Path,
) -> None:
    """The search with a null query hangs: ERR-003 fails on that call alone, the server still
    answers its tools/list, and the check sends the cases after it (no check error)."""
    result = run_against(tmp_path, wiring_mutant=NullQueryHangs, only=("ERR-003",))
    entry = result.ledger.evidence["ERR-003"]
    (failure,) = entry.failures
    assert failure.expected.startswith("mem_search(") and "'query': None" in failure.expected
    assert "no answer" in failure.observed
    assert not entry.errors
    assert entry.passed > 1
