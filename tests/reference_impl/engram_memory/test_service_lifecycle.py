"""The candidate and record lifecycle of the reference service (LIFE, PRIV, HOST-017)."""

from __future__ import annotations

import base64
import re

import pytest
from engram_conformance.spec.engram_memory import Spec, digest

from .service_fixtures import (
    DAY_MS,
    SCOPE_A,
    SCOPE_OTHER_WORKSPACE,
    Harness,
    assert_error,
    capture_arguments,
    error_of,
    value_of,
)

DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
RECORD_ID = re.compile(r"^mem_[a-z2-7]{52}$")
RECORD_FIELDS = {"record_id", "payload_digest", "record_digest", "recorded_at", "trust"}


# capture -----------------------------------------------------------------------------------


def test_life_001_capture_commits_one_pending_candidate(harness: Harness) -> None:
    """LIFE-001: committed_pending with candidate_id, cursor, transaction digest; one sealed row."""
    value = value_of(harness.capture(capture_arguments("life-key-000000001")))
    assert value["status"] == "committed_pending"
    assert value["candidate_id"].startswith("cand_")
    assert value["cursor"] == "1"
    assert DIGEST.match(value["transaction_receipt_digest"])
    assert "record_digest" not in value
    assert harness.candidate_state(value["candidate_id"]) == "pending"
    (row,) = harness.rows("candidates")
    assert all(cell is not None for cell in row), "a pending candidate keeps its sealed material"
    assert harness.rows("records") == []


def test_life_002_pending_candidate_is_neither_searchable_nor_readable(
    harness: Harness, spec: Spec
) -> None:
    """LIFE-002, SEARCH-001: search never shows it; its id is no record_id."""
    candidate_id = harness.pending(text="pendingword appears only here")
    assert value_of(harness.search("pendingword"))["records"] == []
    assert_error(spec, harness.get(candidate_id), "INVALID_SCHEMA")
    lookalike = "mem_" + candidate_id.removeprefix("cand_")
    assert_error(spec, harness.get(lookalike), "NOT_FOUND")


# admission ---------------------------------------------------------------------------------


def test_life_004_accepted_candidate_becomes_a_current_record(harness: Harness) -> None:
    """LIFE-003, LIFE-004, LIFE-006, SEARCH-008: accepted with a record_id that get answers."""
    candidate_id = harness.pending(text="admitted text")
    value = value_of(harness.admit(candidate_id))
    outcome = value["outcome"]
    assert value["replayed"] is False
    assert outcome["status"] == "accepted"
    assert outcome["candidate_id"] == candidate_id
    assert RECORD_ID.match(outcome["record_id"])
    assert DIGEST.match(outcome["decision_receipt_digest"])
    assert DIGEST.match(outcome["transaction_receipt_digest"])
    assert harness.candidate_state(candidate_id) == "accepted"
    assert harness.record_state(outcome["record_id"]) == "accepted_current"
    assert (
        value_of(harness.get(outcome["record_id"]))["record"]["record_id"] == outcome["record_id"]
    )


def test_life_007_record_carries_the_payload_and_the_writer_fields(harness: Harness) -> None:
    """LIFE-007 (the trust class too), REDACT-005: the payload as captured plus the writer's
    fields."""
    arguments = capture_arguments(harness.key(), t_end=harness.clock() + DAY_MS)
    candidate_id = value_of(harness.capture(arguments))["candidate_id"]
    record_id = value_of(harness.admit(candidate_id))["outcome"]["record_id"]
    answer = value_of(harness.get(record_id))
    record = answer["record"]
    payload = arguments["payload"]
    assert answer["redacted_fields"] == []
    assert {k: record[k] for k in payload} == payload
    assert set(record) >= RECORD_FIELDS
    assert record["recorded_at"] == harness.clock.instant()
    assert record["trust"]["class"] in {"earned", "asserted", "signed"}
    assert record["trust"]["evidence_digest"] == arguments["evidence"]["evidence_digest"]


def test_record_digests_follow_the_design_formulas(harness: Harness) -> None:
    """SEARCH-007 and DESIGN Decisions/Digests: payload_digest, record_digest and record_id."""
    arguments = capture_arguments(harness.key(), "digest formulas")
    candidate_id = value_of(harness.capture(arguments))["candidate_id"]
    record_id = value_of(harness.admit(candidate_id))["outcome"]["record_id"]
    record = value_of(harness.get(record_id))["record"]
    assert record["payload_digest"] == digest(arguments["payload"])
    body = {k: v for k, v in record.items() if k not in ("record_id", "record_digest")}
    assert record["record_digest"] == digest(body)
    raw = bytes.fromhex(record["record_digest"].removeprefix("sha256:"))
    assert record_id == "mem_" + base64.b32encode(raw).decode().rstrip("=").lower()
    assert len(record_id) == 56


def test_identical_payloads_admitted_twice_are_two_records(harness: Harness) -> None:
    """Two captures of one payload (two keys) make two distinct record ids."""
    first = harness.accepted(text="same payload")
    second = harness.accepted(text="same payload")
    assert first != second
    assert sorted(harness.found_ids("same payload")) == sorted([first, second])


CREDENTIALS = {
    "private key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY",
    "openssh private key": "-----BEGIN OPENSSH PRIVATE KEY-----",
    "aws access key": "deploy with AKIAIOSFODNN7EXAMPLE please",
    "bearer token": "Authorization: Bearer abcdefghijklmnop0123456789",
    "password pair": "db password=s3cr3t-Value",
    "env file line": "DB_PASSWORD=correct-horse-battery",
    "api key pair": "API_KEY: 'a1b2c3d4e5'",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9",
    "github token": "ghp_" + "A1b2C3d4E5" * 4,
    "slack token": "xoxb-1234567890-abcdefghij",
    "connection string": "postgres://app:hunter2@db.internal:5432/main",
}


@pytest.mark.parametrize("secret", CREDENTIALS.values(), ids=CREDENTIALS.keys())
def test_priv_006_capture_carrying_a_credential_is_rejected(harness: Harness, secret: str) -> None:
    """PRIV-006, LIFE-005, PRIV-004: rejected (a success), key destroyed, never searchable."""
    candidate_id = harness.pending(text=f"rejectmarker {secret}")
    value = value_of(harness.admit(candidate_id))
    assert value["outcome"]["status"] == "rejected"
    assert "record_id" not in value["outcome"]
    assert harness.candidate_state(candidate_id) == "rejected"
    assert harness.rows("records") == []
    (row,) = harness.rows("candidates")
    assert row[-3:] == (None, None, None), "the data key and ciphertext are destroyed"
    assert value_of(harness.search("rejectmarker"))["records"] == []


@pytest.mark.parametrize(
    "where", ["attestation", "source_ref", "second component"], ids=lambda w: w.replace(" ", "-")
)
def test_priv_006_credential_anywhere_in_the_capture_is_rejected(
    harness: Harness, where: str
) -> None:
    """PRIV-006: the policy reads every string of the capture, not only the primary text."""
    secret = "password=hunter2hunter2"
    if where == "attestation":
        arguments = capture_arguments(harness.key(), attestation=secret)
    elif where == "source_ref":
        arguments = capture_arguments(harness.key(), source_ref=f"source:{secret}")
    else:
        arguments = capture_arguments(harness.key(), texts=["clean text", secret])
    candidate_id = value_of(harness.capture(arguments))["candidate_id"]
    assert value_of(harness.admit(candidate_id))["outcome"]["status"] == "rejected"


def test_ordinary_prose_about_passwords_is_accepted(harness: Harness) -> None:
    """LIFE-006: no false positive on prose that merely talks about secrets."""
    text = "The password policy requires 12 characters; rotate the API key monthly."
    assert harness.accepted(text=text)


# illegal transitions -----------------------------------------------------------------------


@pytest.mark.parametrize("state", ["accepted", "rejected", "withdrawn"])
def test_life_012_no_second_decision_on_a_non_pending_candidate(
    harness: Harness, spec: Spec, state: str
) -> None:
    """LIFE-012: admission or withdraw with a new key: ILLEGAL_TRANSITION, nothing written."""
    text = "password=hunter2hunter2" if state == "rejected" else "plain"
    candidate_id = harness.pending(text=text)
    if state == "withdrawn":
        harness.withdraw(candidate_id)
    else:
        assert value_of(harness.admit(candidate_id))["outcome"]["status"] == state
    with harness.writes_nothing():
        assert_error(spec, harness.admit(candidate_id), "ILLEGAL_TRANSITION")
        assert_error(spec, harness.withdraw(candidate_id), "ILLEGAL_TRANSITION")
    assert harness.candidate_state(candidate_id) == state


# withdraw and forget -----------------------------------------------------------------------


def test_life_013_withdraw_receipt_and_key_destruction(harness: Harness, spec: Spec) -> None:
    """LIFE-013, PRIV-003: the receipt, key_destruction complete, the candidate never a record."""
    candidate_id = harness.pending()
    value = value_of(harness.withdraw(candidate_id))
    receipt = value["receipt"]
    assert value["replayed"] is False
    assert value["key_destruction"] == "complete"
    assert receipt["operation"] == "withdraw"
    assert (receipt["from_state"], receipt["to_state"]) == ("pending", "withdrawn")
    assert receipt["event_id"] and receipt["cursor"] == "2"
    for field in ("event_digest", "authorization_receipt_digest", "transaction_receipt_digest"):
        assert DIGEST.match(receipt[field])
    assert harness.candidate_state(candidate_id) == "withdrawn"
    (row,) = harness.rows("candidates")
    assert row[-3:] == (None, None, None)
    assert_error(spec, harness.admit(candidate_id), "ILLEGAL_TRANSITION")
    assert harness.rows("records") == []


def test_life_014_forget_receipt_and_projection_invalidation(harness: Harness, spec: Spec) -> None:
    """LIFE-014, PRIV-005, LIFE-017: tombstone receipt; the text leaves the index."""
    record_id = harness.accepted(text="forgettable words")
    assert harness.found_ids("forgettable") == [record_id]
    value = value_of(harness.forget(record_id))
    receipt = value["receipt"]
    assert value["replayed"] is False
    assert value["projection_invalidation"] == "complete"
    assert receipt["operation"] == "tombstone"
    assert (receipt["from_state"], receipt["to_state"]) == ("accepted_current", "tombstoned")
    for field in ("event_digest", "authorization_receipt_digest", "transaction_receipt_digest"):
        assert DIGEST.match(receipt[field])
    assert harness.record_state(record_id) == "tombstoned"
    assert harness.rows("records_text_1") == []  # the scope's own index
    assert_error(spec, harness.get(record_id), "NOT_FOUND")
    assert harness.found_ids("forgettable") == []


def test_life_016_forget_twice_is_already_terminal(harness: Harness, spec: Spec) -> None:
    """LIFE-016: a second forget with a new key: ALREADY_TERMINAL, nothing written."""
    record_id = harness.accepted()
    harness.forget(record_id)
    with harness.writes_nothing():
        assert_error(spec, harness.forget(record_id), "ALREADY_TERMINAL")


def test_withdraw_and_forget_of_unknown_targets_are_not_found(harness: Harness, spec: Spec) -> None:
    """SCOPE-003: unknown ids answer NOT_FOUND and write nothing."""
    with harness.writes_nothing():
        assert_error(spec, harness.withdraw("cand_unknown"), "NOT_FOUND")
        assert_error(spec, harness.forget("mem_" + "f" * 52), "NOT_FOUND")
        assert_error(spec, harness.admit("cand_unknown"), "NOT_FOUND")


# tombstone guard ---------------------------------------------------------------------------


def test_life_008_tombstone_guard(harness: Harness, spec: Spec) -> None:
    """LIFE-008, LIFE-011, LIFE-017: forgotten content is captured but held for adjudication;
    every new request decides afresh and stays pending_adjudication while the tombstone lasts."""
    record_id = harness.accepted(text="guarded content")
    harness.forget(record_id)
    captured = value_of(harness.capture(capture_arguments(harness.key(), "guarded content")))
    assert captured["status"] == "committed_pending"
    candidate_id = captured["candidate_id"]
    for _ in range(2):
        with harness.writes_nothing(but_a_reservation=True):
            value = value_of(harness.admit(candidate_id))
        assert value["replayed"] is False
        assert value["outcome"]["status"] == "pending_adjudication"
        assert "record_id" not in value["outcome"]
        assert harness.candidate_state(candidate_id) == "pending"
        harness.clock.advance(seconds=60)
    assert harness.found_ids("guarded") == []
    assert_error(spec, harness.get(record_id), "NOT_FOUND")
    withdrawn = value_of(harness.withdraw(candidate_id))
    assert withdrawn["receipt"]["from_state"] == "pending"


def test_life_008_other_content_is_not_guarded(harness: Harness) -> None:
    """The guard compares payload digests: other content is admitted as usual."""
    harness.forget(harness.accepted(text="guarded content"))
    assert harness.accepted(text="guarded content, revised")


def test_life_010_tombstone_guard_is_bound_to_the_scope(harness: Harness) -> None:
    """LIFE-010: identical content forgotten in another scope is admitted here."""
    harness.forget(harness.accepted(text="scoped content"))
    record_id = harness.accepted(SCOPE_OTHER_WORKSPACE, text="scoped content")
    assert harness.found_ids("scoped", SCOPE_OTHER_WORKSPACE) == [record_id]
    assert harness.found_ids("scoped", SCOPE_A) == []


# retention expiry --------------------------------------------------------------------------


def test_life_015_forget_of_an_expired_record_reports_expired(harness: Harness, spec: Spec) -> None:
    """LIFE-015, RET-006: once expires_at is reached the record is gone; forget says expired."""
    retention = {"derivative_rule": "make-ineligible", "expires_at": harness.clock.instant(60_000)}
    record_id = harness.accepted(text="expiring words", retention=retention)
    assert value_of(harness.get(record_id))["record"]["retention"] == retention
    harness.clock.advance(59_999)
    assert harness.found_ids("expiring") == [record_id]
    harness.clock.advance(1)
    assert_error(spec, harness.get(record_id), "NOT_FOUND")
    assert harness.found_ids("expiring") == []
    receipt = value_of(harness.forget(record_id))["receipt"]
    assert (receipt["from_state"], receipt["to_state"]) == ("expired", "tombstoned")


def test_life_018_admitting_an_expired_candidate(harness: Harness, spec: Spec) -> None:
    """LIFE-018: accepted with a record_id, at once expired: not gettable, not searchable."""
    retention = {"derivative_rule": "make-ineligible", "expires_at": harness.clock.instant(1_000)}
    candidate_id = harness.pending(text="late admission", retention=retention)
    harness.clock.advance(seconds=5)
    outcome = value_of(harness.admit(candidate_id))["outcome"]
    assert outcome["status"] == "accepted"
    record_id = outcome["record_id"]
    assert RECORD_ID.match(record_id)
    assert_error(spec, harness.get(record_id), "NOT_FOUND")
    assert harness.found_ids("late admission") == []
    assert value_of(harness.forget(record_id))["receipt"]["from_state"] == "expired"


def test_life_020_valid_time_does_not_change_the_state(harness: Harness, spec: Spec) -> None:
    """LIFE-020: a record whose t_end passed is not returned, but forget says accepted_current."""
    record_id = harness.accepted(t_end=harness.clock() + 1_000)
    harness.clock.advance(1_001)
    assert_error(spec, harness.get(record_id), "NOT_FOUND")
    assert value_of(harness.forget(record_id))["receipt"]["from_state"] == "accepted_current"


def test_life_017_forgotten_content_never_returns(harness: Harness, spec: Spec) -> None:
    """LIFE-017: after forget, a new capture of the same content does not bring it back."""
    record_id = harness.accepted(text="never again")
    harness.forget(record_id)
    candidate_id = harness.pending(text="never again")
    harness.admit(candidate_id)
    assert harness.found_ids("never again") == []
    assert error_of(harness.get(record_id))["code"] == "NOT_FOUND"
