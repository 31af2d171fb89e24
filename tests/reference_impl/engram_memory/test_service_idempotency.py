"""Idempotent mutations (IDEM, RET-007): replays, conflicts, identity; errors reserve nothing."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from engram_conformance.reference_impl.engram_memory.policy import HostPolicy
from engram_conformance.spec.engram_memory import Spec

from .service_fixtures import (
    ADMIT,
    FORGET,
    OTHER_PRINCIPAL,
    SCOPE_A,
    SCOPE_OTHER_TENANT,
    SCOPE_OTHER_WORKSPACE,
    WITHDRAW,
    Binding,
    Harness,
    assert_error,
    capture_arguments,
    open_harness,
    value_of,
)

# replays -----------------------------------------------------------------------------------


def test_idem_001_capture_replay_is_duplicate_exact(harness: Harness) -> None:
    """IDEM-001: same key and arguments: duplicate_exact, the first candidate, nothing new."""
    arguments = capture_arguments("replay-key-00000001")
    first = value_of(harness.capture(arguments))
    assert first["status"] == "committed_pending"
    with harness.writes_nothing():
        replay = value_of(harness.capture(arguments))
    assert replay == {**first, "status": "duplicate_exact"}
    assert len(harness.rows("candidates")) == 1


def test_idem_002_same_content_new_key_is_a_new_candidate(harness: Harness) -> None:
    """IDEM-002: duplicate_exact is no semantic de-duplication."""
    first = value_of(harness.capture(capture_arguments("content-key-0000001")))
    second = value_of(harness.capture(capture_arguments("content-key-0000002")))
    assert second["status"] == "committed_pending"
    assert second["candidate_id"] != first["candidate_id"]
    assert len(harness.rows("candidates")) == 2


@pytest.mark.parametrize("verdict", ["accepted", "rejected", "pending_adjudication"])
def test_idem_003_admission_replay_answers_the_first_outcome(
    harness: Harness, verdict: str
) -> None:
    """IDEM-003: the first outcome, same status, candidate_id and record_id, replayed true."""
    if verdict == "rejected":
        candidate_id = harness.pending(text="config password=hunter2hunter2")
    elif verdict == "pending_adjudication":
        harness.forget(harness.accepted(text="forgotten content"))
        candidate_id = harness.pending(text="forgotten content")
    else:
        candidate_id = harness.pending()
    key = harness.key()
    first = value_of(harness.admit(candidate_id, key))
    assert first["replayed"] is False
    assert first["outcome"]["status"] == verdict
    with harness.writes_nothing():
        replay = value_of(harness.admit(candidate_id, key))
    assert replay == {**first, "replayed": True}


def test_idem_004_withdraw_replay_answers_the_first_receipt(harness: Harness) -> None:
    """IDEM-004: same event_id, event_digest, from_state and to_state; replayed true."""
    candidate_id = harness.pending()
    key = harness.key()
    first = value_of(harness.withdraw(candidate_id, key))
    assert first["replayed"] is False
    with harness.writes_nothing():
        replay = value_of(harness.withdraw(candidate_id, key))
    assert replay == {**first, "replayed": True}


def test_idem_004_forget_replay_answers_the_first_receipt(harness: Harness) -> None:
    """IDEM-004: forget replays the first receipt, even though the record is now tombstoned."""
    record_id = harness.accepted()
    key = harness.key()
    first = value_of(harness.forget(record_id, key))
    assert first["replayed"] is False
    with harness.writes_nothing():
        replay = value_of(harness.forget(record_id, key))
    assert replay == {**first, "replayed": True}


def test_idem_011_capture_replay_after_forget(harness: Harness) -> None:
    """IDEM-011: the original capture key with the same content after forget is a replay."""
    arguments = capture_arguments("original-key-000001", "content later forgotten")
    first = value_of(harness.capture(arguments))
    record_id = value_of(harness.admit(first["candidate_id"]))["outcome"]["record_id"]
    harness.forget(record_id)
    with harness.writes_nothing():
        replay = value_of(harness.capture(arguments))
    assert replay["status"] == "duplicate_exact"
    assert replay["candidate_id"] == first["candidate_id"]


# conflicts ---------------------------------------------------------------------------------


def test_idem_005_capture_key_with_other_content(harness: Harness, spec: Spec) -> None:
    """IDEM-005: same key, other payload or evidence: DIGEST_CONFLICT, nothing written."""
    harness.capture(capture_arguments("conflict-key-000001", "first text"))
    other_text = capture_arguments("conflict-key-000001", "second text")
    other_evidence = capture_arguments("conflict-key-000001", "first text", attestation="seen")
    with harness.writes_nothing():
        assert_error(spec, harness.capture(other_text), "DIGEST_CONFLICT")
        assert_error(spec, harness.capture(other_evidence), "DIGEST_CONFLICT")


@pytest.mark.parametrize("tool", [WITHDRAW, FORGET])
def test_idem_005_same_target_other_reason(harness: Harness, spec: Spec, tool: str) -> None:
    """IDEM-005: same key and target, other reason_ref: DIGEST_CONFLICT, nothing written."""
    target = harness.pending() if tool == WITHDRAW else harness.accepted()
    field = "candidate_id" if tool == WITHDRAW else "record_id"
    arguments = {field: target, "idempotency_key": harness.key(), "reason_ref": "reason:first"}
    value_of(harness.call(tool, arguments))
    with harness.writes_nothing():
        envelope = harness.call(tool, {**arguments, "reason_ref": "reason:second"})
    assert_error(spec, envelope, "DIGEST_CONFLICT")


def test_idem_006_admission_key_with_other_target(harness: Harness, spec: Spec) -> None:
    """IDEM-006: the other candidate keeps its state."""
    first, second = harness.pending(), harness.pending()
    key = harness.key()
    harness.admit(first, key)
    with harness.writes_nothing():
        assert_error(spec, harness.admit(second, key), "DIGEST_CONFLICT")
    assert harness.candidate_state(second) == "pending"


def test_idem_006_withdraw_key_with_other_target(harness: Harness, spec: Spec) -> None:
    first, second = harness.pending(), harness.pending()
    key = harness.key()
    harness.withdraw(first, key)
    with harness.writes_nothing():
        assert_error(spec, harness.withdraw(second, key), "DIGEST_CONFLICT")
    assert harness.candidate_state(second) == "pending"


def test_idem_006_forget_key_with_other_target(harness: Harness, spec: Spec) -> None:
    first, second = harness.accepted(text="first record"), harness.accepted(text="second record")
    key = harness.key()
    harness.forget(first, key)
    with harness.writes_nothing():
        assert_error(spec, harness.forget(second, key), "DIGEST_CONFLICT")
    assert value_of(harness.get(second))["record"]["record_id"] == second


def test_idem_007_key_reused_with_another_tool(harness: Harness, spec: Spec) -> None:
    """IDEM-007: a key first used by one mutating tool conflicts under every other."""
    key = "shared-key-00000001"
    candidate_id = value_of(harness.capture(capture_arguments(key)))["candidate_id"]
    record_id = harness.accepted()
    with harness.writes_nothing():
        assert_error(spec, harness.admit(candidate_id, key), "DIGEST_CONFLICT")
        assert_error(spec, harness.withdraw(candidate_id, key), "DIGEST_CONFLICT")
        assert_error(spec, harness.forget(record_id, key), "DIGEST_CONFLICT")
    assert harness.candidate_state(candidate_id) == "pending"
    admission_key = harness.key()
    harness.admit(candidate_id, admission_key)
    with harness.writes_nothing():
        conflict = harness.capture(capture_arguments(admission_key))
    assert_error(spec, conflict, "DIGEST_CONFLICT")


# identity ----------------------------------------------------------------------------------


def test_idem_008_another_principal_with_the_same_key_is_independent(harness: Harness) -> None:
    """IDEM-008: (tenant, workspace, principal, key): another principal's call is a first call,
    neither a replay (same content) nor a DIGEST_CONFLICT (other content)."""
    arguments = capture_arguments("identity-key-000001")
    first = value_of(harness.capture(arguments))
    same = value_of(harness.capture(arguments, OTHER_PRINCIPAL))
    assert same["status"] == "committed_pending"
    assert same["candidate_id"] != first["candidate_id"]
    third = replace(SCOPE_A, principal="principal-c")
    other_content = capture_arguments("identity-key-000001", "other content")
    assert value_of(harness.capture(other_content, third))["status"] == "committed_pending"
    replay = value_of(harness.capture(arguments))
    assert (replay["status"], replay["candidate_id"]) == ("duplicate_exact", first["candidate_id"])


@pytest.mark.parametrize("scope", [SCOPE_OTHER_TENANT, SCOPE_OTHER_WORKSPACE])
def test_idem_008_another_scope_with_the_same_key_is_independent(
    harness: Harness, scope: Binding
) -> None:
    """IDEM-008: the same key in another scope, even with other content, is a first call."""
    harness.capture(capture_arguments("identity-key-000002"))
    other = value_of(harness.capture(capture_arguments("identity-key-000002", "other"), scope))
    assert other["status"] == "committed_pending"


def test_idem_008_admission_keys_are_per_principal(harness: Harness) -> None:
    """IDEM-008, SCOPE-008: another principal of the scope admits with the same key afresh."""
    first, second = harness.pending(), harness.pending()
    key = harness.key()
    assert value_of(harness.admit(first, key))["outcome"]["status"] == "accepted"
    other = value_of(harness.admit(second, key, OTHER_PRINCIPAL))
    assert other["replayed"] is False
    assert other["outcome"]["status"] == "accepted"


# errors reserve nothing --------------------------------------------------------------------


def test_idem_014_unauthorized_capture_reserves_nothing(harness: Harness, spec: Spec) -> None:
    """IDEM-014, RET-002: after UNAUTHORIZED the same key with valid arguments is a first call."""
    retain = capture_arguments("reserve-key-0000001", retention={"derivative_rule": "retain"})
    with harness.writes_nothing():
        assert_error(spec, harness.capture(retain), "UNAUTHORIZED")
    assert value_of(harness.capture(capture_arguments("reserve-key-0000001")))["status"] == (
        "committed_pending"
    )


def test_idem_014_invalid_schema_reserves_nothing(harness: Harness, spec: Spec) -> None:
    """IDEM-014, XREF-010: after INVALID_SCHEMA the same key with valid arguments is first."""
    broken = capture_arguments("reserve-key-0000002")
    broken["payload"]["primary_event"]["citation_id"] = "citation:dangling"
    with harness.writes_nothing():
        assert_error(spec, harness.capture(broken), "INVALID_SCHEMA")
    first = value_of(harness.capture(capture_arguments("reserve-key-0000002")))
    assert first["status"] == "committed_pending"


def test_idem_014_not_found_admission_reserves_nothing(harness: Harness, spec: Spec) -> None:
    """IDEM-014: after NOT_FOUND the key admits a real candidate as a first call."""
    key = harness.key()
    with harness.writes_nothing():
        assert_error(spec, harness.admit("cand_missing", key), "NOT_FOUND")
    answer = value_of(harness.admit(harness.pending(), key))
    assert answer["replayed"] is False
    assert answer["outcome"]["status"] == "accepted"


def test_idem_014_illegal_transition_reserves_nothing(harness: Harness, spec: Spec) -> None:
    """IDEM-014: after ILLEGAL_TRANSITION the same key withdraws a pending candidate afresh."""
    accepted = harness.pending()
    harness.admit(accepted)
    key = harness.key()
    with harness.writes_nothing():
        assert_error(spec, harness.withdraw(accepted, key), "ILLEGAL_TRANSITION")
    answer = value_of(harness.withdraw(harness.pending(), key))
    assert answer["replayed"] is False


def test_idem_014_already_terminal_reserves_nothing(harness: Harness, spec: Spec) -> None:
    record_id = harness.accepted(text="first")
    harness.forget(record_id)
    key = harness.key()
    with harness.writes_nothing():
        assert_error(spec, harness.forget(record_id, key), "ALREADY_TERMINAL")
    assert value_of(harness.forget(harness.accepted(text="second"), key))["replayed"] is False


# the first resolution survives a policy change ---------------------------------------------


def test_ret_007_replay_keeps_the_first_resolved_retention(tmp_path: Path, spec: Spec) -> None:
    """RET-007: a replay after the host policy changed is still duplicate_exact, and the
    record admitted from it carries the retention resolved at the first capture."""
    state = tmp_path / "state"
    retention = {"derivative_rule": "retain", "expires_at": "2027-03-01T00:00:00.000Z"}
    arguments = capture_arguments("retention-key-00001", retention=retention)
    permissive = HostPolicy(retain_allowed=True, retention_ceiling_s=365 * 86_400)
    with open_harness(state, permissive) as first_host:
        first = value_of(first_host.capture(arguments))
        clock = first_host.clock
    with open_harness(state, HostPolicy(retention_ceiling_s=60), clock) as strict:
        replay = value_of(strict.capture(arguments))
        assert replay["status"] == "duplicate_exact"
        assert replay["candidate_id"] == first["candidate_id"]
        fresh = capture_arguments("retention-key-00002", retention=retention)
        assert_error(spec, strict.capture(fresh), "UNAUTHORIZED")
        record_id = value_of(strict.admit(first["candidate_id"]))["outcome"]["record_id"]
        assert value_of(strict.get(record_id))["record"]["retention"] == retention


def test_replays_survive_reopening_the_state_folder(tmp_path: Path) -> None:
    """Reservations are durable: a new service on the same folder replays every mutation."""
    state = tmp_path / "state"
    with open_harness(state) as first_host:
        capture = capture_arguments("durable-key-0000001")
        captured = value_of(first_host.capture(capture))
        admission = {
            "candidate_id": captured["candidate_id"],
            "idempotency_key": "durable-admit-01",
        }
        admitted = value_of(first_host.call(ADMIT, admission))
        clock = first_host.clock
    with open_harness(state, clock=clock) as second_host:
        replay = value_of(second_host.capture(capture))
        assert replay == {**captured, "status": "duplicate_exact"}
        assert value_of(second_host.call(ADMIT, admission)) == {**admitted, "replayed": True}
