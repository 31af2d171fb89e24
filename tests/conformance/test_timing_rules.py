"""A timing rule reads the same verdict for a slow server whether its answer comes late or not
at all within the call time-out: on a loaded machine the same server does either from run to
run, and a verdict that flipped between ``warn`` and ``error`` flipped baselines and SARIF
levels with it (SCHEMA-040, ``BaseContext.timed``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.conformance.targets.launch import InProcessTarget

from ..mutants.catalog.cost import PairwiseUniqueness
from .inprocess import checks_only, run_against

RULE = "SCHEMA-040"
CHECK = "calls_at_the_bounds_answer_in_time"
CALL_TIMEOUT_S = 2.0


class LateUniqueness(PairwiseUniqueness):
    """The flaw costs past half the time-out, and the answer comes within it."""

    cost_s = CALL_TIMEOUT_S * 0.75


class UnansweredUniqueness(PairwiseUniqueness):
    """The flaw costs past the time-out: the harness stops waiting before the answer comes."""

    cost_s = CALL_TIMEOUT_S * 2


@pytest.mark.parametrize(
    ("mutant", "told"),
    [(LateUniqueness, "answered in "), (UnansweredUniqueness, "no answer within 2.0 s")],
)
def test_a_slow_call_warns_whether_it_answers_late_or_not_at_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mutant: type, told: str
) -> None:
    monkeypatch.setattr(InProcessTarget, "call_timeout_s", CALL_TIMEOUT_S)
    with checks_only(CHECK):
        result = run_against(tmp_path, service_mutant=mutant, only=(RULE,), recheck=False)
    verdict = result.verdicts[RULE]
    assert verdict.verdict == "warn", verdict
    failures = result.ledger.evidence[RULE].failures
    slow = [f for f in failures if "unsortable duplicate" in f.expected]
    assert slow, [f.expected for f in failures]
    assert slow[0].observed.startswith(told), slow[0].observed
    assert "answered within 1000 ms" in slow[0].expected
