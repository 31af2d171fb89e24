"""Each XREF check fires on a server that gets one of capture's cross-references wrong
(``catalog/xref.py``), and only on the rules it breaks. The reference itself passes the family
(``test_schema_mutants.test_reference_passes_the_schema_and_cross_reference_rules``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ...conformance.inprocess import run_against
from ..caught import Caught, Selecting, assert_caught
from .base import ServiceProxy
from .catalog.xref import MUTANTS, RECONCILIATION_MUTANTS
from .repairs import FAMILIES, consenting_to_the_examples_families


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS, ids=[m.__name__ for m, _ in MUTANTS])
def test_xref_mutant_is_caught(
    tmp_path: Path, mutant: type[ServiceProxy], caught: Caught, selecting: Selecting
) -> None:
    policies = consenting_to_the_examples_families() if mutant in RECONCILIATION_MUTANTS else {}
    only = selecting(caught, FAMILIES)
    result = run_against(tmp_path, service_mutant=mutant, only=only, **policies)
    assert_caught(result, caught)
