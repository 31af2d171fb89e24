"""A server without ``mem_get_observation`` (seed 003 names none) has its memories read back
from its ``mem_search`` records: a counter or a field that record shows wrong is caught under
the rule that reads it, as ``mem_get_observation`` showing it wrong is. The server is the one
written from seed 003 alone, with one bug planted in what it shows (``seed_written_mutant.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ..caught import Caught, assert_caught
from ..described import run_described

MUTANT_SERVER = Path(__file__).with_name("seed_written_mutant.py")
#: mutant (``seed_written_mutant.SHOWN``: the field it shows wrong) -> the rule reading it back
MUTANTS = {
    "DuplicatesNotCounted": "DEDUP-001",
    "RevisionsNotCounted": "TOPIC-001",
    "PersonalShownAsProject": "SCOPE-002",
}


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_mem_read_back_mutant_is_caught(tmp_path: Path, mutant: str) -> None:
    """The seed-written server (no mem_get_observation) showing a memory's field wrong in its
    search records."""
    rule = MUTANTS[mutant]
    server = [sys.executable, str(MUTANT_SERVER), mutant]
    found = run_described(tmp_path, server, rule, mutant=mutant, contract="mem")
    assert_caught(found, Caught((rule,), contract="mem"))
