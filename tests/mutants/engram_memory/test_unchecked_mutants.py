"""Each argument rule that had no mutant is caught on its own: a reference that leaves that one
rule out of its argument checks (``catalog/unchecked.py``) breaks it, and no other SCHEMA or
XREF rule."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ...conformance.inprocess import run_against
from ..caught import Caught, Selecting, assert_caught
from .base import plant
from .catalog.unchecked import MUTANTS
from .repairs import FAMILIES, consenting_to_the_examples_families


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS, ids=[c.broken[0] for _, c in MUTANTS])
def test_unchecked_rule_is_caught(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mutant: Callable[[pytest.MonkeyPatch], dict[str, Any]],
    caught: Caught,
    selecting: Selecting,
) -> None:
    planted = plant(mutant, monkeypatch, tmp_path)
    policies = consenting_to_the_examples_families() if "XREF" in caught.broken[0] else {}
    only = selecting(caught, FAMILIES)
    assert_caught(run_against(tmp_path, only=only, **planted, **policies), caught)
