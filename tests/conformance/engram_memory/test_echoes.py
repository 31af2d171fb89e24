"""ENV-007's per-call check: what counts as an echo of the input in an error message."""

from __future__ import annotations

from typing import Any

import pytest
from engram_conformance.conformance.engram_memory.checks.errors import (
    error_message_never_echoes_input,
)
from engram_conformance.conformance.ledger import Ledger
from engram_conformance.conformance.observation import Observation
from engram_conformance.conformance.per_call_context import PerCallContext
from engram_conformance.spec.engram_memory import load

MESSAGE = "The arguments do not match the closed input schema (lexical_and_semantic)."


def judged(arguments: Any, message: str = MESSAGE) -> list[bool]:
    envelope = {
        "ok": False,
        "auditId": "a",
        "redactionClass": "high",
        "error": {"code": "INVALID_SCHEMA", "message": message, "retriable": False},
    }
    observed = Observation(
        0, "tools/call", "engram_memory_search", arguments, None, None, "result", envelope
    )
    ledger = Ledger()
    check = "error_message_never_echoes_input"
    ctx = PerCallContext(
        check=check, spec=load(), observed=observed, memory={}, ledger=ledger, during=None
    )
    error_message_never_echoes_input(ctx)
    evidence = ledger.evidence["ENV-007"]
    return [True] * evidence.passed + [False] * len(evidence.failures)


@pytest.mark.parametrize(
    "arguments",
    [
        {"query": "arguments", "purpose_ref": "p"},  # a plain word the message happens to hold
        {"query": "q", "capability_policy": {"minimum_channels": "lexical_and_semantic"}},
        {"query": "q", "max_packet_bytes": 4096},  # an argument's name, never its value
    ],
    ids=["plain-word", "vocabulary", "name"],
)
def test_no_echo(arguments: Any) -> None:
    assert judged(arguments) == [True]


def test_a_value_sent_is_an_echo() -> None:
    sent = {"query": "ranking-7f3a decision", "purpose_ref": "p"}
    assert judged(sent, f"No match for ranking-7f3a decision; {MESSAGE}") == [False]
