"""Each lifecycle check fires on a server that breaks its rule (``catalog/lifecycle.py``), and the
reference passes them all."""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.conformance.engram_memory.settings import Policy
from engram_conformance.reference_impl.engram_memory.policy import HostPolicy

from ...conformance.inprocess import run_against, without_the_machine
from ..caught import Caught, Selecting, all_pass, assert_caught, family_verdicts
from .base import ServiceProxy
from .catalog.lifecycle import MUTANTS, NEVER_EXPIRING, IgnoresExpiry


@pytest.mark.parametrize(
    ("mutant", "caught"),
    MUTANTS,
    ids=lambda value: value.__name__ if isinstance(value, type) else "",
)
def test_lifecycle_mutant_is_caught(
    tmp_path: Path, mutant: type[ServiceProxy], caught: Caught, selecting: Selecting
) -> None:
    only = selecting(caught, ("LIFE",))
    assert_caught(run_against(tmp_path, service_mutant=mutant, only=only), caught)


def test_records_that_never_expire_are_caught(tmp_path: Path) -> None:
    only = ("LIFE-015", "LIFE-018")
    result = run_against(tmp_path, service_mutant=IgnoresExpiry, only=only, profile="full")
    assert_caught(result, NEVER_EXPIRING)


def test_the_reference_passes_every_lifecycle_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    without_the_machine(monkeypatch)
    result = run_against(tmp_path, only=("LIFE",), profile="full")
    assert family_verdicts(result, "LIFE") == all_pass("LIFE")


def test_consented_reconciliation_is_committed(tmp_path: Path) -> None:
    families = frozenset({"family:consented"})
    result = run_against(
        tmp_path,
        server_policy=HostPolicy(reconciliation_families=families),
        target_policy=Policy(reconciliation_families=families),
        only=("LIFE-021",),
    )
    assert result.verdicts["LIFE-021"].verdict == "pass"
    assert result.ledger.evidence["LIFE-021"].passed == 2  # refused, consented (key: IDEM-014)


def test_without_secret_rejection_only_the_tombstone_guard_decides_life_005(
    tmp_path: Path,
) -> None:
    result = run_against(tmp_path, target_policy=Policy(rejects_secrets=False), only=("LIFE-005",))
    assert result.ledger.evidence["LIFE-005"].not_applicable
    assert result.verdicts["LIFE-005"].verdict == "pass"
