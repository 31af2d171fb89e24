"""Each scope check fires on a server that breaks its rule (``catalog/scope.py``), and no other
rule reads broken."""

from __future__ import annotations

from pathlib import Path

import pytest

from ...conformance.inprocess import run_against
from ..caught import Caught, Selecting, assert_caught
from .base import ServiceProxy
from .catalog.scope import MUTANTS


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS.values(), ids=MUTANTS.keys())
def test_scope_mutant_is_caught(
    tmp_path: Path, mutant: type[ServiceProxy], caught: Caught, selecting: Selecting
) -> None:
    only = selecting(caught, ("IDEM", "SCOPE"))
    assert_caught(run_against(tmp_path, service_mutant=mutant, only=only), caught)


def test_reference_passes_the_scope_rules(tmp_path: Path) -> None:
    assert_caught(run_against(tmp_path, only=("SCOPE",)), Caught(()))
