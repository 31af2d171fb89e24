"""Each envelope and error check fires on a server that breaks its rule (``catalog/envelope.py``),
and every other rule of the run holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from ...conformance.inprocess import run_against
from ..caught import Caught, Selecting, assert_caught
from .base import plant
from .catalog.envelope import MUTANTS, MessagesNameFields


@pytest.mark.parametrize(
    ("mutant", "caught", "only"), MUTANTS, ids=[mutant.__name__ for mutant, *_ in MUTANTS]
)
def test_envelope_mutant_is_caught(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mutant: type,
    caught: Caught,
    only: tuple[str, ...],
    selecting: Selecting,
) -> None:
    planted = plant(mutant, monkeypatch, tmp_path)
    result = run_against(tmp_path, only=selecting(caught, only), **planted)
    assert_caught(result, caught)


def test_constant_messages_that_name_fields_are_no_echo(tmp_path: Path) -> None:
    """ENV-007 counts argument values, never argument names (DESIGN.md's rulings)."""
    result = run_against(tmp_path, service_mutant=MessagesNameFields, only=("ENV", "ERR"))
    assert {rule: result.verdicts[rule].verdict for rule in ("ENV-007", "ERR-004")} == {
        "ENV-007": "pass",
        "ERR-004": "pass",
    }
