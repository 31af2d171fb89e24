"""The idempotency checks over clients of their own (profile full) fire on a server whose keys
do not hold across MCP sessions (``catalog/lost_transport.py``), which the checks on the one
shared session cannot see."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from engram_conformance.conformance.engram_memory.checks import lost_transport
from engram_conformance.conformance.runner import RunResult

from ...conformance.inprocess import checks_only, run_against
from ..caught import assert_caught
from .catalog.lost_transport import (
    KEYS_PER_SESSION,
    OVER_OWN_CLIENTS,
    KeysPerSession,
    SlowMutations,
)

RULES = tuple(OVER_OWN_CLIENTS)
ON_THE_SHARED_SESSION = (
    "retry_after_unknown_outcome_takes_effect_once",
    "concurrent_identical_calls_take_effect_once",
)


def run_checks(state_dir: Path, *checks: str, **mutants: Any) -> RunResult:
    with checks_only(*checks):
        return run_against(state_dir, only=RULES, profile="full", **mutants)


def test_keys_per_session_are_caught_over_clients_of_their_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Time enough for the calls whose transport the check closes to be performed (their answers
    # may then come before the close): a retry over another session is what this mutant fails.
    monkeypatch.setattr(lost_transport, "WRITTEN_AFTER_S", 0.5)
    result = run_checks(tmp_path, *OVER_OWN_CLIENTS.values(), session_mutant=KeysPerSession)
    assert_caught(result, KEYS_PER_SESSION)


def test_keys_per_session_pass_on_the_shared_session(tmp_path: Path) -> None:
    result = run_checks(tmp_path, *ON_THE_SHARED_SESSION, session_mutant=KeysPerSession)
    assert {rule: result.verdicts[rule].verdict for rule in RULES} == dict.fromkeys(RULES, "pass")


def test_answers_lost_on_purpose_are_no_fault_of_the_server(tmp_path: Path) -> None:
    """Mutations slower than the check waits before it closes their transport: their answers
    are certainly lost, and the reference still passes (no error verdict)."""
    check = OVER_OWN_CLIENTS["IDEM-012"]
    result = run_checks(tmp_path, check, service_mutant=SlowMutations)
    assert result.verdicts["IDEM-012"].verdict == "pass"
    assert result.ledger.evidence["IDEM-012"].passed == len(lost_transport.MUTATIONS)
