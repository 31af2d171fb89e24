"""The result envelope of the reference service: shape, auditId, constant messages (ENV, ERR)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.reference_impl.engram_memory.policy import HostPolicy
from engram_conformance.spec.engram_memory import Spec, load

from .service_fixtures import (
    ADMIT,
    CAPTURE,
    FORGET,
    GET,
    PURPOSE,
    SEARCH,
    WITHDRAW,
    Harness,
    assert_error,
    capture_arguments,
    open_harness,
    value_of,
)

#: Lowercase base32 letters only, so it can sit inside a well-formed record_id too.
CANARY = "zqxcanaryqzx"


def test_env_001_success_envelope_shape(harness: Harness) -> None:
    """ENV-001, ENV-003: exactly ok, output {schema_version 1, value}, auditId, redactionClass."""
    envelope = harness.search("anything")
    assert set(envelope) == {"ok", "output", "auditId", "redactionClass"}
    assert envelope["ok"] is True
    assert set(envelope["output"]) == {"schema_version", "value"}
    assert envelope["output"]["schema_version"] == 1
    assert type(envelope["output"]["schema_version"]) is int
    assert envelope["redactionClass"] == "high"


def test_env_002_failure_envelope_shape(harness: Harness, spec: Spec) -> None:
    """ENV-002, ENV-003, ERR-001: exactly ok false, auditId, redactionClass, error{3 keys}."""
    envelope = harness.get("mem_" + "b" * 52)
    assert set(envelope) == {"ok", "auditId", "redactionClass", "error"}
    assert envelope["ok"] is False
    assert envelope["redactionClass"] == "high"
    assert set(envelope["error"]) == {"code", "message", "retriable"}
    assert_error(spec, envelope, "NOT_FOUND")
    assert envelope["error"]["message"]


def _first_calls(harness: Harness) -> list[tuple[str, dict[str, Any]]]:
    """One successful call of every tool, in an order where each can succeed."""
    captured = value_of(harness.capture(capture_arguments(harness.key(), "audit trail text")))
    withdrawable = harness.pending()
    admitted = value_of(harness.admit(captured["candidate_id"]))
    record_id = admitted["outcome"]["record_id"]
    return [
        (SEARCH, {"query": "audit", "purpose_ref": PURPOSE}),
        (GET, {"record_id": record_id, "purpose_ref": PURPOSE}),
        (CAPTURE, capture_arguments(harness.key())),
        (ADMIT, {"candidate_id": harness.pending(), "idempotency_key": harness.key()}),
        (
            WITHDRAW,
            {"candidate_id": withdrawable, "idempotency_key": harness.key(), "reason_ref": "r"},
        ),
        (FORGET, {"record_id": record_id, "idempotency_key": harness.key(), "reason_ref": "r"}),
    ]


def test_env_006_audit_id_is_the_context_audit_id_on_success(harness: Harness) -> None:
    """ENV-006: auditId equals the context's audit_id, for every tool."""
    for number, (tool, arguments) in enumerate(_first_calls(harness)):
        audit_id = f"audit:success:{tool}:{number}"
        envelope = harness.call(tool, arguments, audit_id=audit_id)
        assert envelope["ok"] is True, (tool, envelope)
        assert envelope["auditId"] == audit_id


@pytest.mark.parametrize("tool", [SEARCH, GET, CAPTURE, ADMIT, WITHDRAW, FORGET])
def test_env_006_audit_id_is_the_context_audit_id_on_failure(harness: Harness, tool: str) -> None:
    """ENV-006: a failure carries the context's audit_id too."""
    envelope = harness.call(tool, {"unexpected": True}, audit_id=f"audit:failure:{tool}")
    assert envelope["ok"] is False
    assert envelope["auditId"] == f"audit:failure:{tool}"


def _canary_failures(harness: Harness) -> Iterator[tuple[str, dict[str, Any]]]:
    """Envelopes of failed calls whose arguments all carry the canary, with the code expected."""
    record_id = harness.accepted(text=f"text {CANARY}")
    pending = harness.pending(text=f"pending {CANARY}")
    yield (
        "INVALID_SCHEMA",
        harness.call(SEARCH, {"query": CANARY, "purpose_ref": PURPOSE, CANARY: CANARY}),
    )
    bad_digest = capture_arguments(f"key-{CANARY}-0001", CANARY)
    bad_digest["evidence"]["evidence_digest"] = f"sha256:{CANARY}"
    yield "INVALID_DIGEST", harness.capture(bad_digest)
    yield "NOT_FOUND", harness.get(f"mem_{CANARY}")
    yield "NOT_FOUND", harness.admit(f"cand_{CANARY}", f"key-{CANARY}-0002")
    yield "STALE_PAGE", harness.search(CANARY, page_cursor=CANARY)
    yield (
        "RANKING_UNAVAILABLE",
        harness.search(
            CANARY,
            capability_policy={"minimum_channels": "lexical_and_semantic", "network": "allow"},
        ),
    )
    retain = capture_arguments(
        f"key-{CANARY}-0003", CANARY, retention={"derivative_rule": "retain"}
    )
    yield "UNAUTHORIZED", harness.capture(retain)
    forget = {"record_id": record_id, "idempotency_key": f"key-{CANARY}-0004", "reason_ref": CANARY}
    other_confirmation = harness.confirmation(FORGET, {**forget, "reason_ref": "other"})
    yield "gate_failed", harness.call(FORGET, forget, confirm=other_confirmation)
    harness.capture(capture_arguments(f"key-{CANARY}-0005", CANARY))
    yield "DIGEST_CONFLICT", harness.capture(capture_arguments(f"key-{CANARY}-0005", CANARY * 2))
    harness.admit(pending, f"key-{CANARY}-0006")
    yield "ILLEGAL_TRANSITION", harness.admit(pending, f"key-{CANARY}-0007")
    harness.call(FORGET, forget)
    yield "ALREADY_TERMINAL", harness.forget(record_id, f"key-{CANARY}-0008")


def test_env_007_messages_are_constant_and_never_echo_input(harness: Harness, spec: Spec) -> None:
    """ENV-007, ERR-004, ERR-003: message and retriable come from the catalogue, no input."""
    seen = set()
    for code, envelope in _canary_failures(harness):
        assert_error(spec, envelope, code)
        assert CANARY not in json.dumps(envelope), envelope
        seen.add(code)
    assert len(seen) == 10


def test_err_004_same_code_same_message_across_tools_and_scopes(tmp_path: Path, spec: Spec) -> None:
    """ERR-004: NOT_FOUND from get, admission, withdraw and forget, in two scopes, is one answer."""
    answers = set()
    with open_harness(tmp_path / "state", HostPolicy()) as harness:
        calls: list[Callable[[], dict[str, Any]]] = [
            lambda: harness.get("mem_" + "c" * 52),
            lambda: harness.admit("cand_unknown"),
            lambda: harness.withdraw("cand_unknown"),
            lambda: harness.forget("mem_" + "c" * 52),
        ]
        for call in calls:
            envelope = call()
            assert_error(spec, envelope, "NOT_FOUND")
            answers.add(json.dumps(envelope["error"], sort_keys=True))
    assert len(answers) == 1


@pytest.mark.parametrize("arguments", [[], "text", None, 7, True, 1.5])
@pytest.mark.parametrize("tool", [SEARCH, GET, CAPTURE, ADMIT, WITHDRAW, FORGET])
def test_schema_004_arguments_that_are_not_an_object(
    harness: Harness, spec: Spec, tool: str, arguments: Any
) -> None:
    """SCHEMA-004: an argument value that is not an object is INVALID_SCHEMA, nothing written."""
    with harness.writes_nothing():
        envelope = harness.call(tool, arguments)
    assert_error(spec, envelope, "INVALID_SCHEMA")


BROKEN_ENVELOPES = {
    "extra top-level key": {
        "ok": True,
        "output": {"schema_version": 1, "value": {}},
        "auditId": "a",
        "redactionClass": "high",
        "extra": 1,
    },
    "output value not of the tool's schema": {
        "ok": True,
        "output": {"schema_version": 1, "value": {"records": 1}},
        "auditId": "a",
        "redactionClass": "high",
    },
    "message not the catalogue's": {
        "ok": False,
        "auditId": "a",
        "redactionClass": "high",
        "error": {"code": "STALE_PAGE", "message": "stale", "retriable": False},
    },
    "retriable not the catalogue's": {
        "ok": False,
        "auditId": "a",
        "redactionClass": "high",
        "error": {
            "code": "RANKING_UNAVAILABLE",
            "message": load().errors["RANKING_UNAVAILABLE"].message,
            "retriable": False,
        },
    },
    "code not answered by this tool": {
        "ok": False,
        "auditId": "a",
        "redactionClass": "high",
        "error": {
            "code": "ALREADY_TERMINAL",
            "message": load().errors["ALREADY_TERMINAL"].message,
            "retriable": False,
        },
    },
}


@pytest.mark.parametrize("envelope", BROKEN_ENVELOPES.values(), ids=BROKEN_ENVELOPES.keys())
def test_the_harness_shape_check_is_real(harness: Harness, envelope: dict[str, Any]) -> None:
    """Every call above passes Harness.check_shape; it does refuse broken envelopes."""
    with pytest.raises(AssertionError):
        harness.check_shape(SEARCH, envelope)
