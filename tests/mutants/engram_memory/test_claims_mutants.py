"""Each case of a malformed or missing claim, and each other purpose, is caught by itself: a
binding that lets that one case through (``catalog/claims.py``) breaks its rule, with failures
about that case alone, and no other host rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from ...conformance.inprocess import run_against
from ..caught import Caught, Selecting, assert_caught
from .base import plant
from .catalog.claims import MUTANTS


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS, ids=[m.__name__ for m, _ in MUTANTS])
def test_claims_mutant_is_caught(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mutant: type,
    caught: Caught,
    selecting: Selecting,
) -> None:
    planted = plant(mutant, monkeypatch, tmp_path)
    assert_caught(run_against(tmp_path, only=selecting(caught, ("HOST",)), **planted), caught)
