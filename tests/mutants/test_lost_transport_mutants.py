"""The idempotency checks over clients of their own (profile full) fire on a server whose keys
do not hold across MCP sessions, which the checks on the one shared session cannot see."""

from __future__ import annotations

import itertools
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.conformance.engram_memory.checks import lost_transport
from engram_conformance.conformance.runner import RunResult
from engram_conformance.reference_impl.engram_memory.context import InvocationContext

from ..conformance.inprocess import ServiceProxy, broken_verdict, checks_only, run_against
from .proxies import ContextProxy
from .test_idempotency_mutants import identity_of

RULES = ("IDEM-012", "IDEM-013")
OVER_OWN_CLIENTS = {
    "IDEM-012": "retry_after_a_closed_transport_takes_effect_once",
    "IDEM-013": "identical_calls_over_several_sessions_take_effect_once",
}
ON_THE_SHARED_SESSION = (
    "retry_after_unknown_outcome_takes_effect_once",
    "concurrent_identical_calls_take_effect_once",
)


class KeysPerSession(ContextProxy):
    """Each MCP session keeps idempotency keys of its own, as a server process that reserves
    keys in its memory would: a mutation sent again over another session takes effect again
    (capture makes another candidate; a transition answers ILLEGAL_TRANSITION)."""

    sessions = itertools.count(1)
    one_at_a_time = threading.Lock()  # the sessions' servers share one SQLite connection

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.session = next(self.sessions)

    def call(self, tool: str, arguments: Any, context: InvocationContext) -> dict[str, Any]:
        with self.one_at_a_time:
            return super().call(tool, arguments, context)

    def rebind(self, tool: str, arguments: Any, context: InvocationContext) -> InvocationContext:
        if identity_of(context, arguments) is None:
            return context
        return replace(context, principal=f"{context.principal}|session{self.session}")


class SlowMutations(ServiceProxy):
    """The reference, taking its time over each mutation (then it answers as the reference)."""

    TAKES_S = 0.1

    def call(self, tool: str, arguments: Any, context: InvocationContext) -> dict[str, Any]:
        if identity_of(context, arguments) is not None:
            time.sleep(self.TAKES_S)
        return self.inner.call(tool, arguments, context)


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
    for rule, check in OVER_OWN_CLIENTS.items():
        assert result.verdicts[rule].verdict == broken_verdict(rule)
        assert {failure.check for failure in result.ledger.evidence[rule].failures} == {check}


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
