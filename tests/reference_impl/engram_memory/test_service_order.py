"""DESIGN.md "Order of checks on a call", from the deadline on (HOST-015, HOST-016, GATE-011,
SCHEMA-011, RET-005, IDEM-009, IDEM-010): the first failing check decides, and nothing is written.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.reference_impl.engram_memory.policy import HostPolicy
from engram_conformance.spec.engram_memory import Spec

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

# deadline ----------------------------------------------------------------------------------


@pytest.mark.parametrize("tool", [SEARCH, GET, CAPTURE, ADMIT, WITHDRAW, FORGET])
def test_host_015_deadline_passed_outranks_invalid_arguments(
    harness: Harness, spec: Spec, tool: str
) -> None:
    """HOST-015, HOST-016: a passed deadline answers DEADLINE_EXCEEDED (retriable) first."""
    with harness.writes_nothing():
        envelope = harness.call(tool, {"bogus": 1}, deadline_ms=harness.clock() - 1)
    assert_error(spec, envelope, "DEADLINE_EXCEEDED")
    assert envelope["error"]["retriable"] is True


def test_host_015_deadline_passed_writes_and_reserves_nothing(harness: Harness, spec: Spec) -> None:
    """HOST-015, IDEM-014: a valid capture past its deadline writes nothing, reserves no key."""
    arguments = capture_arguments("deadline-key-000001")
    with harness.writes_nothing():
        envelope = harness.capture(arguments, deadline_ms=harness.clock() - 1)
    assert_error(spec, envelope, "DEADLINE_EXCEEDED")
    first = value_of(harness.capture(arguments, deadline_ms=harness.clock() + 1))
    assert first["status"] == "committed_pending"


def test_host_015_deadline_passed_outranks_a_failing_confirmation(
    harness: Harness, spec: Spec
) -> None:
    """HOST-016: the deadline comes before the confirmation gate."""
    candidate_id = harness.pending()
    arguments = {"candidate_id": candidate_id, "idempotency_key": harness.key(), "reason_ref": "r"}
    stale = harness.confirmation(WITHDRAW, arguments, approved_at_ms=harness.clock() - 60_000)
    envelope = harness.call(WITHDRAW, arguments, confirm=stale, deadline_ms=harness.clock() - 1)
    assert_error(spec, envelope, "DEADLINE_EXCEEDED")
    assert harness.candidate_state(candidate_id) == "pending"


# arguments ---------------------------------------------------------------------------------


def test_schema_011_schema_failure_outranks_bad_digest(harness: Harness, spec: Spec) -> None:
    """SCHEMA-011: a call breaking the schema and a digest form answers INVALID_SCHEMA."""
    arguments = capture_arguments(harness.key())
    arguments["evidence"]["evidence_digest"] = "md5:abc"
    arguments["payload"]["components"][0]["kind"] = "summary"
    with harness.writes_nothing():
        assert_error(spec, harness.capture(arguments), "INVALID_SCHEMA")


def test_schema_011_cross_reference_outranks_bad_digest(harness: Harness, spec: Spec) -> None:
    """SCHEMA-011: a dangling cross-reference (INVALID_SCHEMA) outranks INVALID_DIGEST."""
    arguments = capture_arguments(harness.key())
    arguments["payload"]["citations"][0]["content_digest"] = "sha256:" + "A" * 64
    arguments["payload"]["primary_component_id"] = "component:missing"
    with harness.writes_nothing():
        assert_error(spec, harness.capture(arguments), "INVALID_SCHEMA")


def test_schema_010_bad_digest_alone_is_invalid_digest(harness: Harness, spec: Spec) -> None:
    """SCHEMA-010: a digest not of the sha256 form answers INVALID_DIGEST and writes nothing."""
    arguments = capture_arguments("digest-key-00000001")
    arguments["payload"]["citations"][0]["content_digest"] = "sha256:" + "A" * 64
    with harness.writes_nothing():
        assert_error(spec, harness.capture(arguments), "INVALID_DIGEST")
    arguments = capture_arguments("digest-key-00000001")
    assert value_of(harness.capture(arguments))["status"] == "committed_pending"


def test_gate_011_invalid_arguments_outrank_gate_failed(harness: Harness, spec: Spec) -> None:
    """GATE-011: INVALID_SCHEMA comes before a confirmation that does not hold."""
    candidate_id = harness.pending()
    arguments = {"candidate_id": candidate_id, "idempotency_key": "short", "reason_ref": "r"}
    foreign = harness.confirmation(WITHDRAW, arguments, capability=FORGET)
    assert_error(spec, harness.call(WITHDRAW, arguments, confirm=foreign), "INVALID_SCHEMA")


# the gate before replay, conflict and lifecycle --------------------------------------------


def test_gate_011_gate_failed_outranks_digest_conflict(harness: Harness, spec: Spec) -> None:
    """GATE-011: a confirmation that does not hold answers gate_failed before DIGEST_CONFLICT."""
    first, second = harness.pending(), harness.pending()
    key = harness.key()
    assert value_of(harness.withdraw(first, key))["replayed"] is False
    arguments = {"candidate_id": second, "idempotency_key": key, "reason_ref": "other"}
    expired = harness.confirmation(WITHDRAW, arguments, approved_at_ms=harness.clock() - 31_000)
    with harness.writes_nothing():
        assert_error(spec, harness.call(WITHDRAW, arguments, confirm=expired), "gate_failed")
    assert_error(spec, harness.call(WITHDRAW, arguments), "DIGEST_CONFLICT")


def test_gate_011_gate_failed_outranks_not_found(harness: Harness, spec: Spec) -> None:
    """GATE-011: gate_failed before NOT_FOUND."""
    arguments = {
        "record_id": "mem_" + "d" * 52,
        "idempotency_key": harness.key(),
        "reason_ref": "r",
    }
    wrong_target = harness.confirmation(FORGET, arguments, target="mem_" + "e" * 52)
    assert_error(spec, harness.call(FORGET, arguments, confirm=wrong_target), "gate_failed")
    assert_error(spec, harness.call(FORGET, arguments), "NOT_FOUND")


def test_gate_011_gate_failed_outranks_illegal_transition(harness: Harness, spec: Spec) -> None:
    """GATE-011: gate_failed before ILLEGAL_TRANSITION."""
    candidate_id = harness.pending()
    harness.admit(candidate_id)
    arguments = {"candidate_id": candidate_id, "idempotency_key": harness.key(), "reason_ref": "r"}
    too_long = harness.confirmation(WITHDRAW, arguments, ttl_ms=300_001)
    assert_error(spec, harness.call(WITHDRAW, arguments, confirm=too_long), "gate_failed")
    assert_error(spec, harness.call(WITHDRAW, arguments), "ILLEGAL_TRANSITION")


def test_gate_011_gate_failed_outranks_already_terminal(harness: Harness, spec: Spec) -> None:
    """GATE-011: gate_failed before ALREADY_TERMINAL."""
    record_id = harness.accepted()
    harness.forget(record_id)
    arguments = {"record_id": record_id, "idempotency_key": harness.key(), "reason_ref": "r"}
    other_digest = harness.confirmation(FORGET, {**arguments, "reason_ref": "s"})
    assert_error(spec, harness.call(FORGET, arguments, confirm=other_digest), "gate_failed")
    assert_error(spec, harness.call(FORGET, arguments), "ALREADY_TERMINAL")


# replay and conflict before the clock and policy -------------------------------------------


def test_idem_009_replay_after_expires_at_passed_is_duplicate_exact(
    harness: Harness, spec: Spec
) -> None:
    """IDEM-009, RET-004: replay detection comes before the clock check on expires_at."""
    retention = {
        "derivative_rule": "make-ineligible",
        "expires_at": harness.clock.instant(3_600_000),
    }
    arguments = capture_arguments("expiring-key-000001", retention=retention)
    first = value_of(harness.capture(arguments))
    harness.clock.advance(seconds=7200)
    with harness.writes_nothing():
        replay = value_of(harness.capture(arguments))
    assert replay["status"] == "duplicate_exact"
    assert replay["candidate_id"] == first["candidate_id"]
    fresh = capture_arguments("expiring-key-000002", retention=retention)
    assert_error(spec, harness.capture(fresh), "INVALID_SCHEMA")


def test_idem_005_conflict_outranks_the_clock_check(harness: Harness, spec: Spec) -> None:
    """HOST-016: the same key with other content answers DIGEST_CONFLICT, not INVALID_SCHEMA."""
    harness.capture(capture_arguments("conflict-key-000001"))
    past = {"derivative_rule": "make-ineligible", "expires_at": harness.clock.instant(-1)}
    other = capture_arguments("conflict-key-000001", retention=past)
    with harness.writes_nothing():
        assert_error(spec, harness.capture(other), "DIGEST_CONFLICT")


def test_ret_005_past_expires_at_outranks_unauthorized(harness: Harness, spec: Spec) -> None:
    """RET-005: a past expires_at with a refused retention or family answers INVALID_SCHEMA."""
    past = harness.clock.instant(0)
    retain = capture_arguments(
        harness.key(), retention={"derivative_rule": "retain", "expires_at": past}
    )
    family = capture_arguments(
        harness.key(),
        retention={"derivative_rule": "make-ineligible", "expires_at": past},
        family_refs=["family:unconsented"],
    )
    with harness.writes_nothing():
        assert_error(spec, harness.capture(retain), "INVALID_SCHEMA")
        assert_error(spec, harness.capture(family), "INVALID_SCHEMA")
        retain["payload"]["retention"]["expires_at"] = harness.clock.instant(-1)
        assert_error(spec, harness.capture(retain), "INVALID_SCHEMA")
    retain["payload"]["retention"]["expires_at"] = harness.clock.instant(1)
    assert_error(spec, harness.capture(retain), "UNAUTHORIZED")


def test_idem_010_admission_replay_after_state_change(harness: Harness) -> None:
    """IDEM-010: an admission replay after the candidate left pending answers replayed."""
    candidate_id = harness.pending()
    key = harness.key()
    first = value_of(harness.admit(candidate_id, key))
    assert first["outcome"]["status"] == "accepted"
    replay = value_of(harness.admit(candidate_id, key))
    assert replay == {**first, "replayed": True}


def test_idem_010_withdraw_replay_after_state_change(harness: Harness) -> None:
    """IDEM-010: a withdraw replay of a withdrawn candidate answers the first receipt."""
    candidate_id = harness.pending()
    key = harness.key()
    first = value_of(harness.withdraw(candidate_id, key))
    with harness.writes_nothing():
        replay = value_of(harness.withdraw(candidate_id, key))
    assert replay == {**first, "replayed": True}


def test_policy_checks_come_after_replay(tmp_path: Path) -> None:
    """HOST-016, RET-007: a replay is answered before the host-policy checks that now refuse."""
    retention = {"derivative_rule": "retain", "expires_at": "2027-06-01T00:00:00.000Z"}
    arguments = capture_arguments("policy-key-00000001", retention=retention, family_refs=["f:a"])
    generous = HostPolicy(
        retain_allowed=True,
        retention_ceiling_s=365 * 86_400,
        reconciliation_families=frozenset({"f:a"}),
    )
    with open_harness(tmp_path / "state", generous) as first_host:
        first = value_of(first_host.capture(arguments))
        clock = first_host.clock
    with open_harness(tmp_path / "state", HostPolicy(), clock) as strict_host:
        replay = value_of(strict_host.capture(arguments))
        assert replay["status"] == "duplicate_exact"
        assert replay["candidate_id"] == first["candidate_id"]
        fresh = capture_arguments("policy-key-00000002", retention=retention, family_refs=["f:a"])
        assert_error(strict_host.spec, strict_host.capture(fresh), "UNAUTHORIZED")


# search ------------------------------------------------------------------------------------


def test_stale_page_outranks_ranking_unavailable(harness: Harness, spec: Spec) -> None:
    """HOST-016 (as the reference reads the list): a malformed cursor is STALE_PAGE even when
    the capability policy asks for a semantic channel."""
    semantic = {"minimum_channels": "lexical_and_semantic", "network": "forbid"}
    arguments = {
        "query": "q",
        "purpose_ref": PURPOSE,
        "capability_policy": semantic,
        "page_cursor": "garbage",
    }
    assert_error(spec, harness.call(SEARCH, arguments), "STALE_PAGE")
    del arguments["page_cursor"]
    assert_error(spec, harness.call(SEARCH, arguments), "RANKING_UNAVAILABLE")
