"""The bounded-cost check fires on servers whose cost grows faster than their arguments
(``catalog/cost.py``), with the call time-out shortened so that their flaws cost past half of it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.conformance.targets.launch import InProcessTarget

from ...conformance.inprocess import checks_only, run_against
from ..caught import Caught, assert_caught
from .base import ServiceProxy
from .catalog.cost import MUTANTS

RULE = "SCHEMA-040"
CHECK = "calls_at_the_bounds_answer_in_time"
CALL_TIMEOUT_S = 6.0


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS.values(), ids=MUTANTS.keys())
def test_cost_mutant_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mutant: type[ServiceProxy], caught: Caught
) -> None:
    monkeypatch.setattr(InProcessTarget, "call_timeout_s", CALL_TIMEOUT_S)
    with checks_only(CHECK):
        assert_caught(run_against(tmp_path, service_mutant=mutant, only=(RULE,)), caught)


def test_reference_answers_the_bounds_in_time(tmp_path: Path) -> None:
    with checks_only(CHECK):
        result = run_against(tmp_path, only=(RULE,))
    assert result.verdicts[RULE].verdict == "pass"
