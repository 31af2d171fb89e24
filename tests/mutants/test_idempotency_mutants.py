"""Each idempotency check fires on a server that breaks its rule (``catalog/idempotency.py``), and
no other rule reads broken."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..conformance.inprocess import run_against
from .base import plant
from .catalog.idempotency import AFTER_EXPIRY, MUTANTS
from .caught import Caught, assert_caught


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS.values(), ids=MUTANTS.keys())
def test_idempotency_mutant_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mutant: Any, caught: Caught
) -> None:
    planted = plant(mutant, monkeypatch, tmp_path)
    assert_caught(run_against(tmp_path, only=("IDEM", "SCOPE"), **planted), caught)


@pytest.mark.parametrize(
    ("mutant", "caught"), AFTER_EXPIRY, ids=[m.__name__ for m, _ in AFTER_EXPIRY]
)
def test_replay_after_expiry_mutant_is_caught(tmp_path: Path, mutant: type, caught: Caught) -> None:
    """The one check that waits (profile full): a capture replayed once its retention ended,
    then its key reused with other content."""
    result = run_against(tmp_path, service_mutant=mutant, only=("IDEM",), profile="full")
    assert_caught(result, caught)


def test_reference_passes_the_idempotency_rules(tmp_path: Path) -> None:
    assert_caught(run_against(tmp_path, only=("IDEM",), profile="full"), Caught(()))
