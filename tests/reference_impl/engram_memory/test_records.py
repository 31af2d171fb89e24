"""Records as the reference writes them: instants, ids, digests, currency."""

from __future__ import annotations

import base64
import re

import pytest
from engram_conformance.reference_impl.engram_memory.records import (
    build_record,
    instant,
    is_current,
    record_id_of,
    sealed_digest,
    searchable_text,
    without,
)
from engram_conformance.spec.engram_memory import digest, instant_ms

from .service_fixtures import START_MS, capture_arguments

RECORD_ID = re.compile(r"^mem_[a-z2-7]+$")
INSTANT = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


@pytest.mark.parametrize(
    ("epoch_ms", "text"),
    [
        (0, "1970-01-01T00:00:00.000Z"),
        (1, "1970-01-01T00:00:00.001Z"),
        (999, "1970-01-01T00:00:00.999Z"),
        (1_000, "1970-01-01T00:00:01.000Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"),
        (START_MS, "2026-12-01T12:00:00.000Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
    ],
)
def test_instant_is_canonical_utc_with_milliseconds(epoch_ms: int, text: str) -> None:
    assert instant(epoch_ms) == text
    assert instant_ms(text) == epoch_ms


@pytest.mark.parametrize("epoch_ms", [12_345, 1_700_000_000_123, 4_102_444_800_000 - 1])
def test_instant_round_trips(epoch_ms: int) -> None:
    assert INSTANT.match(instant(epoch_ms))
    assert instant_ms(instant(epoch_ms)) == epoch_ms


@pytest.mark.parametrize(
    ("record_digest", "expected"),
    [
        ("sha256:" + "00" * 32, "mem_" + "a" * 52),
        ("sha256:" + "ff" * 32, "mem_" + "7" * 51 + "q"),
    ],
)
def test_record_id_of_known_digests(record_digest: str, expected: str) -> None:
    assert record_id_of(record_digest) == expected


@pytest.mark.parametrize("value", [{}, {"a": 1}, ["x"], "record"])
def test_record_id_is_mem_and_52_base32_letters(value: object) -> None:
    record_digest = digest(value)
    record_id = record_id_of(record_digest)
    assert len(record_id) == 56
    assert RECORD_ID.match(record_id)
    raw = base64.b32decode(record_id.removeprefix("mem_").upper() + "====")
    assert "sha256:" + raw.hex() == record_digest


def test_build_record_fields_and_digests() -> None:
    arguments = capture_arguments(text="a record")
    payload, evidence = arguments["payload"], arguments["evidence"]
    record = build_record(payload, evidence, 7, START_MS)
    assert {k: record[k] for k in payload} == payload
    assert record["payload_digest"] == digest(payload)
    assert record["recorded_at"] == "2026-12-01T12:00:00.000Z"
    assert record["recorded_cursor"] == "7"
    body = without(record, "record_id", "record_digest")
    assert record["record_digest"] == digest(body)
    assert record["record_id"] == record_id_of(record["record_digest"])
    trust = record["trust"]
    assert trust["class"] == "asserted"
    assert trust["evidence_digest"] == evidence["evidence_digest"]
    assert trust["issued_at"] == record["recorded_at"]
    assert trust["receipt_digest"] == digest(without(trust, "receipt_digest"))


def test_build_record_does_not_change_its_inputs() -> None:
    arguments = capture_arguments()
    payload_before = repr(arguments["payload"])
    build_record(arguments["payload"], arguments["evidence"], 1, START_MS)
    assert repr(arguments["payload"]) == payload_before


def test_identical_payloads_at_other_cursors_are_other_records() -> None:
    arguments = capture_arguments()
    first = build_record(arguments["payload"], arguments["evidence"], 1, START_MS)
    second = build_record(arguments["payload"], arguments["evidence"], 2, START_MS)
    assert first["payload_digest"] == second["payload_digest"]
    assert first["record_id"] != second["record_id"]
    again = build_record(arguments["payload"], arguments["evidence"], 1, START_MS)
    assert again == first


def test_searchable_text_holds_component_texts_and_sources() -> None:
    arguments = capture_arguments(texts=["first text", "second text"], source_ref="source:s")
    record = build_record(arguments["payload"], arguments["evidence"], 1, START_MS)
    assert searchable_text(record) == "first text\nsecond text\nsource:s"


@pytest.mark.parametrize(
    ("t", "t_end", "now", "current"),
    [
        (100, None, 100, True),
        (100, None, 99, False),
        (100, 200, 200, True),
        (100, 200, 201, False),
        (100, 100, 100, True),
        (-5, None, 0, True),
    ],
)
def test_is_current(t: int, t_end: int | None, now: int, current: bool) -> None:
    assert is_current(t, t_end, now) is current


def test_sealed_digest_and_without() -> None:
    value = {"b": 1, "a": "é"}
    sealed = sealed_digest(value, "d")
    assert sealed == {**value, "d": digest(value)}
    assert without(sealed, "d", "missing") == value
