"""validate_arguments, family by family: the code and the rule each broken argument gets."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from engram_conformance.spec.engram_memory import instant_ms, validate_arguments
from engram_conformance.spec.engram_memory.tool_names import CAPTURE, SEARCH

DIGEST = "sha256:" + "0123456789abcdef" * 4


def capture_arguments() -> dict[str, Any]:
    return {
        "idempotency_key": "capture-key-000001",
        "payload": {
            "schema_version": 2,
            "purpose_ref": "purpose:notes",
            "valid_time": {"t": 1_700_000_000_000, "t_end": 1_700_000_000_001},
            "components": [
                {
                    "component_id": "component:a",
                    "kind": "decision",
                    "text": "Use WAL mode.",
                    "citation_ids": ["citation:1", "citation:2"],
                },
                {
                    "component_id": "component:b",
                    "kind": "context",
                    "text": "SQLite locks.",
                    "citation_ids": ["citation:2"],
                },
            ],
            "primary_component_id": "component:a",
            "primary_event": {
                "at": 1_700_000_000_000,
                "type_ref": "event:d",
                "citation_id": "citation:1",
            },
            "citations": [
                {
                    "citation_id": "citation:1",
                    "source_ref": "source:adr",
                    "locator": {"scheme": "doc", "value": "adr-1"},
                    "content_digest": DIGEST,
                },
                {
                    "citation_id": "citation:2",
                    "source_ref": "source:manual",
                    "locator": {"scheme": "url", "value": "https://sqlite.org/wal.html"},
                    "content_digest": DIGEST,
                    "observed_at": "2026-01-01T00:00:00.000Z",
                },
            ],
            "retention": {
                "derivative_rule": "make-ineligible",
                "expires_at": "2999-01-01T00:00:00.000Z",
            },
            "reconciliation": {"family_refs": ["family:a", "family:b"]},
        },
        "evidence": {
            "evidence_ref": "evidence:1",
            "evidence_digest": DIGEST,
            "citation_ids": ["citation:1"],
        },
    }


def answer(tool: str, arguments: Any, **kwargs: Any) -> tuple[str | None, str | None, str]:
    verdict = validate_arguments(tool, arguments, **kwargs)
    return verdict.code, verdict.rule, verdict.pointer


def broken(path: str, value: Any = None, *, delete: bool = False) -> dict[str, Any]:
    """The valid capture with the value at ``path`` (dotted, ints for items) replaced or removed."""
    arguments = capture_arguments()
    *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
    node = arguments
    for part in parents:
        node = node[part]
    if delete:
        del node[last]
    else:
        node[last] = value
    return arguments


def test_valid_capture_and_search_are_accepted() -> None:
    assert validate_arguments(CAPTURE, capture_arguments()).ok
    assert validate_arguments(SEARCH, {"query": "wal", "purpose_ref": "purpose:notes"}).ok


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (broken("payload.scope_ref", "scope:x"), ("SCHEMA-001", "/payload/scope_ref")),
        (broken("evidence.extra", 1), ("SCHEMA-001", "/evidence/extra")),
        (broken("payload.retention", None), ("SCHEMA-002", "/payload/retention")),
        (
            broken("payload.citations.0.observed_at", None),
            ("SCHEMA-002", "/payload/citations/0/observed_at"),
        ),
        (broken("payload.purpose_ref", delete=True), ("SCHEMA-003", "/payload/purpose_ref")),
        (broken("payload.valid_time", "now"), ("SCHEMA-004", "/payload/valid_time")),
        (broken("payload.valid_time.t", 1.5), ("SCHEMA-004", "/payload/valid_time/t")),
    ],
    ids=[
        "extra-nested",
        "extra-evidence",
        "null-optional",
        "null-deep",
        "missing",
        "type",
        "fraction",
    ],
)
def test_closedness_null_required_and_types(
    arguments: dict[str, Any], expected: tuple[str, str]
) -> None:
    assert answer(CAPTURE, arguments) == ("INVALID_SCHEMA", *expected)


def test_a_number_with_zero_fraction_is_an_integer() -> None:
    assert validate_arguments(SEARCH, {"query": "q", "purpose_ref": "p", "limit": 10.0}).ok


@pytest.mark.parametrize(
    ("path", "value", "rule"),
    [
        ("payload.purpose_ref", "x" * 511 + "é", "SCHEMA-005"),
        ("payload.purpose_ref", "", "SCHEMA-005"),
        ("idempotency_key", "é" * 7 + "a", "SCHEMA-007"),
        ("idempotency_key", "k" * 257, "SCHEMA-007"),
        ("payload.components.0.text", "😀" * 16384 + "a", "SCHEMA-024"),
        ("payload.citations.0.locator.value", "", "SCHEMA-027"),
        ("evidence.attestation", "a" * 4097, "SCHEMA-031"),
    ],
)
def test_utf8_byte_bounds(path: str, value: str, rule: str) -> None:
    pointer = "/" + path.replace(".", "/")
    assert answer(CAPTURE, broken(path, value)) == ("INVALID_SCHEMA", rule, pointer)


def test_byte_bounds_are_inclusive() -> None:
    assert validate_arguments(CAPTURE, broken("payload.purpose_ref", "x" * 510 + "é")).ok
    assert validate_arguments(CAPTURE, broken("payload.components.0.text", "😀" * 16384)).ok
    assert validate_arguments(CAPTURE, broken("idempotency_key", "é" * 8)).ok


def test_nfc_is_required_of_references_and_keys_but_not_of_free_text() -> None:
    decomposed = "cafe\u0301"
    assert answer(CAPTURE, broken("payload.purpose_ref", decomposed + "-purpose")) == (
        "INVALID_SCHEMA",
        "SCHEMA-006",
        "/payload/purpose_ref",
    )
    assert answer(CAPTURE, broken("idempotency_key", decomposed + "-key-00000"))[1] == "SCHEMA-006"
    assert validate_arguments(CAPTURE, broken("payload.components.0.text", decomposed)).ok
    assert validate_arguments(SEARCH, {"query": decomposed, "purpose_ref": "p"}).ok


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        (
            "payload.citations.0.content_digest",
            "sha256:" + "A" * 64,
            ("INVALID_DIGEST", "SCHEMA-010"),
        ),
        ("evidence.evidence_digest", "sha256:" + "a" * 63, ("INVALID_DIGEST", "SCHEMA-010")),
        (
            "payload.citations.1.observed_at",
            "2026-02-30T00:00:00.000Z",
            ("INVALID_SCHEMA", "SCHEMA-008"),
        ),
        (
            "payload.citations.1.observed_at",
            "2026-01-01T00:00:00Z",
            ("INVALID_SCHEMA", "SCHEMA-008"),
        ),
        (
            "payload.citations.1.observed_at",
            "\uff12\uff10\uff12\uff16-01-01T00:00:00.000Z",
            ("INVALID_SCHEMA", "SCHEMA-008"),
        ),
    ],
    ids=[
        "digest-upper",
        "digest-short",
        "instant-calendar",
        "instant-precision",
        "instant-wide-digits",
    ],
)
def test_digest_and_instant_forms(path: str, value: str, expected: tuple[str, str]) -> None:
    assert answer(CAPTURE, broken(path, value))[:2] == expected


def test_record_id_pattern() -> None:
    get = "engram_memory_get"
    assert validate_arguments(get, {"record_id": "mem_abc234", "purpose_ref": "p"}).ok
    assert answer(get, {"record_id": "mem_ABC", "purpose_ref": "p"}) == (
        "INVALID_SCHEMA",
        "SCHEMA-019",
        "/record_id",
    )


@pytest.mark.parametrize(
    ("arguments", "rule", "pointer"),
    [
        ({"query": "q", "purpose_ref": "p", "limit": 0}, "SCHEMA-013", "/limit"),
        ({"query": "q", "purpose_ref": "p", "limit": 51}, "SCHEMA-013", "/limit"),
        (
            {"query": "q", "purpose_ref": "p", "max_packet_bytes": 4095},
            "SCHEMA-014",
            "/max_packet_bytes",
        ),
        ({"query": "q" * 8193, "purpose_ref": "p"}, "SCHEMA-012", "/query"),
        ({"query": "q", "purpose_ref": "p", "page_cursor": ""}, "SCHEMA-018", "/page_cursor"),
        (
            {
                "query": "q",
                "purpose_ref": "p",
                "capability_policy": {"minimum_channels": "lexical"},
            },
            "SCHEMA-017",
            "/capability_policy/network",
        ),
    ],
)
def test_search_ranges_and_policy(arguments: dict[str, Any], rule: str, pointer: str) -> None:
    assert answer(SEARCH, arguments) == ("INVALID_SCHEMA", rule, pointer)


def test_counts() -> None:
    components = capture_arguments()["payload"]["components"]
    too_many = [dict(components[1], component_id=f"component:{i}") for i in range(64)]
    assert answer(CAPTURE, broken("payload.components", components + too_many))[1] == "SCHEMA-022"
    assert answer(CAPTURE, broken("payload.components.0.citation_ids", []))[1] == "SCHEMA-025"
    assert (
        answer(CAPTURE, broken("evidence.citation_ids", ["citation:1", "citation:1"]))[1]
        == "SCHEMA-030"
    )
    families = [f"family:{i:03d}" for i in range(65)]
    assert (
        answer(CAPTURE, broken("payload.reconciliation.family_refs", families))[1] == "SCHEMA-029"
    )


def test_safe_integers() -> None:
    assert validate_arguments(CAPTURE, broken("payload.primary_event.at", 2**53 - 1)).ok
    assert answer(CAPTURE, broken("payload.primary_event.at", 2**53))[1] == "SCHEMA-021"


XREF_CASES = {
    "XREF-001": (
        "payload.citations.1.citation_id",
        "citation:1",
        "/payload/citations/1/citation_id",
    ),
    "XREF-002": (
        "payload.components.1.component_id",
        "component:a",
        "/payload/components/1/component_id",
    ),
    "XREF-003": (
        "payload.components.1.citation_ids",
        ["citation:9"],
        "/payload/components/1/citation_ids/0",
    ),
    "XREF-004": ("payload.primary_component_id", "component:z", "/payload/primary_component_id"),
    "XREF-005": (
        "payload.primary_event.citation_id",
        "citation:9",
        "/payload/primary_event/citation_id",
    ),
    "XREF-006": (
        "payload.primary_component_id",
        "component:b",
        "/payload/primary_event/citation_id",
    ),
    "XREF-007": ("evidence.citation_ids", ["citation:9"], "/evidence/citation_ids/0"),
    "XREF-008": ("payload.valid_time.t_end", 1, "/payload/valid_time/t_end"),
    "XREF-009": (
        "payload.reconciliation.family_refs",
        ["b", "a"],
        "/payload/reconciliation/family_refs",
    ),
}


@pytest.mark.parametrize("rule", XREF_CASES)
def test_cross_references(rule: str) -> None:
    path, value, pointer = XREF_CASES[rule]
    assert answer(CAPTURE, broken(path, value)) == ("INVALID_SCHEMA", rule, pointer)


def test_repeated_family_refs_are_not_strictly_sorted() -> None:
    arguments = broken("payload.reconciliation.family_refs", ["a", "a"])
    assert answer(CAPTURE, arguments)[1] == "XREF-009"


def test_family_refs_sort_by_utf16_code_units() -> None:
    # U+FF41 sorts after U+1F600 in UTF-16 (0xD83D < 0xFF41), before it by code point: only
    # the order the spec decides refuses the code-point order (XREF-011, profile)
    ordered = broken("payload.reconciliation.family_refs", ["\U0001f600", "\uff41"])
    assert validate_arguments(CAPTURE, ordered).ok
    by_code_point = broken("payload.reconciliation.family_refs", ["\uff41", "\U0001f600"])
    assert answer(CAPTURE, by_code_point) == (
        "INVALID_SCHEMA",
        "XREF-011",
        "/payload/reconciliation/family_refs",
    )


def test_family_refs_no_usual_order_sorts_are_xref_009() -> None:
    # unsorted by code points and by UTF-16 code units alike: the seed's "ordenados" (XREF-009)
    unsorted = ["\uff41", "b"]
    assert answer(CAPTURE, broken("payload.reconciliation.family_refs", unsorted))[1] == "XREF-009"
    # a repeat is XREF-009 whatever the order of the rest
    repeated = ["\uff41", "\uff41", "\U0001f600"]
    assert answer(CAPTURE, broken("payload.reconciliation.family_refs", repeated))[1] == "XREF-009"


def test_json_text_and_size() -> None:
    assert answer(SEARCH, {"query": "\ud800", "purpose_ref": "p"}) == (
        "INVALID_SCHEMA",
        "SCHEMA-032",
        "/query",
    )
    assert (
        answer(SEARCH, {"query": "q", "purpose_ref": "p", "limit": float("nan")})[1] == "SCHEMA-032"
    )
    assert answer(SEARCH, ["not", "an", "object"]) == ("INVALID_SCHEMA", "SCHEMA-004", "")
    huge = broken("payload.components.0.text", "a" * 60_000)
    huge["payload"]["components"] = [
        dict(huge["payload"]["components"][0], component_id=f"component:{i}") for i in range(18)
    ]
    huge["payload"]["primary_component_id"] = "component:0"
    assert answer(CAPTURE, huge) == ("INVALID_SCHEMA", "SCHEMA-009", "")


def test_order_schema_then_cross_references_then_digests() -> None:
    arguments = broken("payload.citations.0.content_digest", "md5:0")
    assert answer(CAPTURE, arguments)[:2] == ("INVALID_DIGEST", "SCHEMA-010")
    arguments["payload"]["primary_component_id"] = "component:z"
    assert answer(CAPTURE, arguments)[:2] == ("INVALID_SCHEMA", "XREF-004")
    arguments["payload"]["components"][0]["kind"] = "opinion"
    assert answer(CAPTURE, arguments)[:2] == ("INVALID_SCHEMA", "SCHEMA-023")


def test_the_first_failing_field_as_sent_decides() -> None:
    first_limit = {"limit": 0, "query": "", "purpose_ref": "p"}
    first_query = {"query": "", "limit": 0, "purpose_ref": "p"}
    assert answer(SEARCH, first_limit)[1] == "SCHEMA-013"
    assert answer(SEARCH, first_query)[1] == "SCHEMA-012"


def test_clock_checks_run_last_and_only_with_a_clock() -> None:
    expires = "2030-06-01T12:00:00.000Z"
    arguments = broken("payload.retention.expires_at", expires)
    at = instant_ms(expires)
    assert answer(CAPTURE, arguments, clock=lambda: at) == (
        "INVALID_SCHEMA",
        "RET-004",
        "/payload/retention/expires_at",
    )
    assert validate_arguments(CAPTURE, arguments, clock=lambda: at - 1).ok
    assert validate_arguments(CAPTURE, arguments, clock=None).ok
    both = copy.deepcopy(arguments)
    both["payload"]["components"][0]["kind"] = "opinion"
    assert answer(CAPTURE, both, clock=lambda: at)[1] == "SCHEMA-023"


def test_unknown_tool_is_a_key_error() -> None:
    with pytest.raises(KeyError, match="engram_memory_purge"):
        validate_arguments("engram_memory_purge", {})
