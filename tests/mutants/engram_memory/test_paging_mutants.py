"""Each paging check fires on a server that breaks its rule (``catalog/paging.py``), and no other
paging rule breaks."""

from __future__ import annotations

from pathlib import Path

import pytest

from ...conformance.inprocess import run_against
from ..caught import Caught, Selecting, assert_caught
from .base import ServiceProxy
from .catalog.paging import BLIND_TO_EXPIRY, MUTANTS, CursorIgnoresExpiry


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS, ids=[m.__name__ for m, _ in MUTANTS])
def test_paging_mutant_is_caught(
    tmp_path: Path, mutant: type[ServiceProxy], caught: Caught, selecting: Selecting
) -> None:
    only = selecting(caught, ("PAGE",))
    assert_caught(run_against(tmp_path, service_mutant=mutant, only=only), caught)


def test_reference_passes_every_paging_rule(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=("PAGE",))
    assert {v.verdict for v in result.verdicts.values()} == {"pass"}, result.verdicts


def test_a_cursor_blind_to_expiry_is_caught(tmp_path: Path) -> None:
    """The one paging check that waits (profile full): a record of the list expires."""
    result = run_against(
        tmp_path, service_mutant=CursorIgnoresExpiry, only=("PAGE-006",), profile="full"
    )
    assert_caught(result, BLIND_TO_EXPIRY)
