"""Each extra argument the checks send is caught by itself: a service that ignores that one
argument (``catalog/extras.py``) breaks the rules that send it, and no other host or gate
rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from ...conformance.inprocess import run_against
from ..caught import Caught, Selecting, assert_caught
from .base import plant
from .catalog.extras import MUTANTS


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS, ids=[m.__name__ for m, _ in MUTANTS])
def test_extras_mutant_is_caught(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mutant: type,
    caught: Caught,
    selecting: Selecting,
) -> None:
    planted = plant(mutant, monkeypatch, tmp_path)
    families = tuple(dict.fromkeys(rule.split("-")[0] for rule in caught.rules))
    assert_caught(run_against(tmp_path, only=selecting(caught, families), **planted), caught)
