"""Field redaction of returned records (REDACT-001 to REDACT-005)."""

from __future__ import annotations

import copy

import pytest
from engram_conformance.reference_impl.engram_memory.redaction import packet, pointer
from engram_conformance.spec.engram_memory import digest

RECORD = {
    "record_id": "mem_" + "a" * 52,
    "record_digest": "sha256:" + "1" * 64,
    "components": [{"text": "t"}],
    "trust": {"class": "asserted"},
    "valid_time": {"t": 1},
    "a/b": 1,
    "c~d": 2,
}


@pytest.mark.parametrize(
    ("field", "expected"),
    [("trust", "/trust"), ("a/b", "/a~1b"), ("c~d", "/c~0d"), ("~1", "/~01"), ("", "/")],
)
def test_pointer_escapes_as_rfc_6901(field: str, expected: str) -> None:
    assert pointer(field) == expected


def test_nothing_hidden_is_the_full_record() -> None:
    """REDACT-005."""
    result = packet(RECORD, ())
    assert result["record"] == RECORD
    assert result["redacted_fields"] == []


def test_hidden_fields_are_removed_and_listed_sorted() -> None:
    """REDACT-002, REDACT-003: sorted pointers of exactly the removed top-level fields."""
    result = packet(RECORD, ["valid_time", "trust", "c~d", "a/b", "components"])
    assert result["redacted_fields"] == ["/a~1b", "/components", "/c~0d", "/trust", "/valid_time"]
    assert set(result["record"]) == {"record_id", "record_digest"}


def test_record_id_is_never_removed() -> None:
    """REDACT-001."""
    result = packet(RECORD, ["record_id", "trust"])
    assert result["record"]["record_id"] == RECORD["record_id"]
    assert result["redacted_fields"] == ["/trust"]


def test_unknown_fields_are_ignored() -> None:
    result = packet(RECORD, ["nothing_like_this", "trust"])
    assert result["redacted_fields"] == ["/trust"]


def test_redaction_receipt_digest() -> None:
    """REDACT-004: the receipt binds the record and what was removed."""
    result = packet(RECORD, ["trust"])
    receipt = {
        "kind": "redaction",
        "record_id": RECORD["record_id"],
        "record_digest": RECORD["record_digest"],
        "redacted_fields": ["/trust"],
    }
    assert result["redaction_receipt_digest"] == digest(receipt)
    assert packet(RECORD, [])["redaction_receipt_digest"] != result["redaction_receipt_digest"]


def test_the_stored_record_is_not_changed() -> None:
    before = copy.deepcopy(RECORD)
    packet(RECORD, ["trust", "components"])
    assert before == RECORD
