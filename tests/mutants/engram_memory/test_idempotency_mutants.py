"""Each idempotency check fires on a server that breaks its rule (``catalog/idempotency.py``), and
no other rule reads broken."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ...conformance.inprocess import run_against, without_the_machine
from ..caught import Caught, Selecting, assert_caught
from .base import plant
from .catalog.idempotency import AFTER_EXPIRY, MUTANTS


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS.values(), ids=MUTANTS.keys())
def test_idempotency_mutant_is_caught(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mutant: Any,
    caught: Caught,
    selecting: Selecting,
) -> None:
    planted = plant(mutant, monkeypatch, tmp_path)
    only = selecting(caught, ("IDEM", "SCOPE"))
    assert_caught(run_against(tmp_path, only=only, **planted), caught)


@pytest.mark.parametrize(
    ("mutant", "caught"), AFTER_EXPIRY, ids=[m.__name__ for m, _ in AFTER_EXPIRY]
)
def test_replay_after_expiry_mutant_is_caught(
    tmp_path: Path, mutant: type, caught: Caught, selecting: Selecting
) -> None:
    """The one check that waits (profile full): a capture replayed once its retention ended,
    then its key reused with other content."""
    only = selecting(caught, ("IDEM",))
    result = run_against(tmp_path, service_mutant=mutant, only=only, profile="full")
    assert_caught(result, caught)


def test_reference_passes_the_idempotency_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    without_the_machine(monkeypatch)
    assert_caught(run_against(tmp_path, only=("IDEM",), profile="full"), Caught(()))
