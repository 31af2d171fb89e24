"""Search: ranking, limits, byte budgets, digests, paging and stale cursors, redaction
(SEARCH, PAGE, REDACT)."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.reference_impl.engram_memory.paging import PageCursor
from engram_conformance.reference_impl.engram_memory.policy import HostPolicy
from engram_conformance.spec.engram_memory import Spec, canonical_json, digest

from .service_fixtures import (
    SCOPE_OTHER_TENANT,
    SCOPE_OTHER_WORKSPACE,
    Binding,
    Harness,
    assert_error,
    open_harness,
    value_of,
)

SEMANTIC = {"minimum_channels": "lexical_and_semantic", "network": "forbid"}


def _records(harness: Harness, count: int, text: str = "shared term in every record") -> list[str]:
    return [harness.accepted(text=text) for _ in range(count)]


def _all_pages(harness: Harness, query: str, **parameters: Any) -> list[dict[str, Any]]:
    """Every page of a search, following next_page_cursor until it is absent."""
    pages = [value_of(harness.search(query, **parameters))]
    while "next_page_cursor" in pages[-1]:
        cursor = pages[-1]["next_page_cursor"]
        pages.append(value_of(harness.search(query, page_cursor=cursor, **parameters)))
        assert len(pages) < 100
    return pages


def _ids(page: dict[str, Any]) -> list[str]:
    return [packet["record"]["record_id"] for packet in page["records"]]


# ranking -----------------------------------------------------------------------------------


def test_search_002_distinctive_term_finds_its_record(harness: Harness) -> None:
    """SEARCH-002: a current record is found by a word of its text or its citation source."""
    record_id = harness.accepted(text="the zymurgy decision", source_ref="source:wiki/brewing")
    harness.accepted(text="unrelated text")
    assert harness.found_ids("zymurgy") == [record_id]
    assert harness.found_ids("ZYMURGY decision?") == [record_id]
    assert harness.found_ids("brewing") == [record_id]


def test_search_003_ranks_without_gaps_and_scores_not_increasing(harness: Harness) -> None:
    """SEARCH-003: ranks 1..n in packet order; scores never increase."""
    texts = [
        "ranking",
        "ranking ranking ranking",
        "ranking among many other unrelated words in a long sentence here",
        "ranking ranking and a few more",
        "nothing to see",
    ]
    for text in texts:
        harness.accepted(text=text)
    packets = value_of(harness.search("ranking"))["records"]
    assert [packet["rank"] for packet in packets] == [1, 2, 3, 4]
    scores = [packet["score"] for packet in packets]
    assert scores == sorted(scores, reverse=True)
    assert len(set(scores)) > 1, "the texts differ, so must their scores"


def test_search_004_equal_scores_are_ordered_by_record_id(harness: Harness) -> None:
    """SEARCH-004: identical texts score the same and come in ascending record_id order."""
    record_ids = _records(harness, 6, "identical tie text")
    packets = value_of(harness.search("identical tie"))["records"]
    assert len({packet["score"] for packet in packets}) == 1
    assert _ids({"records": packets}) == sorted(record_ids)


def test_search_015_default_limit_is_ten(harness: Harness) -> None:
    """SEARCH-015, PAGE-003: 12 matches: 10 and a cursor, then ranks 11 and 12."""
    _records(harness, 12)
    first = value_of(harness.search("shared"))
    assert [packet["rank"] for packet in first["records"]] == list(range(1, 11))
    assert "next_page_cursor" in first
    second = value_of(harness.search("shared", page_cursor=first["next_page_cursor"]))
    assert [packet["rank"] for packet in second["records"]] == [11, 12]
    assert "next_page_cursor" not in second


def test_search_015_limit_caps_the_page(harness: Harness) -> None:
    """SEARCH-015, SCHEMA-033: limit 3 (and 3.0) returns three."""
    _records(harness, 5)
    assert len(value_of(harness.search("shared", limit=3))["records"]) == 3
    assert len(value_of(harness.search("shared", limit=3.0))["records"]) == 3


def test_search_009_no_match_is_an_empty_success(harness: Harness) -> None:
    """SEARCH-009: ok with empty records and a rank receipt, also for a query of no words."""
    harness.accepted(text="something")
    for query in ("absentword", "!!!", "   ", "-"):
        value = value_of(harness.search(query))
        assert value["records"] == []
        assert value["rank_receipt"]["candidate_count"] == 0
        assert "next_page_cursor" not in value


FTS_SYNTAX = [
    '"',
    '""',
    '"alpha',
    "*",
    "alpha*",
    "NEAR(alpha beta)",
    "NEAR(alpha beta, 2)",
    "(alpha",
    "alpha)",
    "alpha AND beta",
    "alpha OR",
    "AND",
    "NOT alpha",
    "-alpha",
    "alpha:beta",
    "text:alpha",
    "^alpha",
    "{alpha beta}",
    "'alpha'",
    "alpha + beta",
    "_",
    "\\alpha",
    "alpha\x00beta",
    "col:*",
]


@pytest.mark.parametrize("query", FTS_SYNTAX)
def test_fts_syntax_in_queries_never_errors(harness: Harness, query: str) -> None:
    """SEARCH-009: FTS5 operators and quotes are taken as text: ok, and words still match."""
    record_id = harness.accepted(text="alpha beta gamma")
    value = value_of(harness.search(query))
    if "alpha" in query or "beta" in query:
        assert _ids(value) == [record_id]
    else:
        assert _ids(value) == []


def test_search_010_semantic_channel_is_unavailable(harness: Harness, spec: Spec) -> None:
    """SEARCH-010: lexical_and_semantic: RANKING_UNAVAILABLE (retriable), never a lexical page."""
    harness.accepted(text="semantic words")
    for network in ("forbid", "allow"):
        policy = {"minimum_channels": "lexical_and_semantic", "network": network}
        envelope = harness.search("semantic", capability_policy=policy)
        assert_error(spec, envelope, "RANKING_UNAVAILABLE")
        assert envelope["error"]["retriable"] is True


def test_search_011_network_allow_grants_nothing(harness: Harness) -> None:
    """SEARCH-011: network allow answers the same records in the same order as forbid."""
    _records(harness, 3, "network words")
    harness.accepted(text="network words again and again")
    forbid = value_of(
        harness.search(
            "network", capability_policy={"minimum_channels": "lexical", "network": "forbid"}
        )
    )
    allow = value_of(
        harness.search(
            "network", capability_policy={"minimum_channels": "lexical", "network": "allow"}
        )
    )
    assert forbid["records"] == allow["records"]


# digests and receipts ----------------------------------------------------------------------


def test_search_006_response_digest(harness: Harness) -> None:
    """SEARCH-006: response_digest covers the output value without itself."""
    _records(harness, 3)
    for parameters in ({}, {"limit": 2}):
        value = value_of(harness.search("shared", **parameters))
        rest = {k: v for k, v in value.items() if k != "response_digest"}
        assert value["response_digest"] == digest(rest)


def test_search_005_rank_receipt(harness: Harness) -> None:
    """SEARCH-005: the receipt describes the whole ordered result, whatever the page."""
    _records(harness, 4)
    pages = _all_pages(harness, "shared", limit=3)
    every_id = [record_id for page in pages for record_id in _ids(page)]
    for page in pages:
        receipt = page["rank_receipt"]
        assert receipt["profile"] == "engram-reference:fts5-bm25"
        assert receipt["profile_version"] == "1.0.0"
        assert receipt["candidate_count"] == 4
        assert receipt["ordered_ids_digest"] == digest(every_id)
        assert receipt["issued_at"] == harness.clock.instant()
        rest = {k: v for k, v in receipt.items() if k != "receipt_digest"}
        assert receipt["receipt_digest"] == digest(rest)


# byte budget -------------------------------------------------------------------------------


def test_search_012_page_cut_to_the_byte_budget(harness: Harness) -> None:
    """SEARCH-012, PAGE-002: JCS of each page <= max_packet_bytes; every record exactly once."""
    filler = " ".join(f"filler{n}" for n in range(90))
    record_ids = _records(harness, 7, f"budget {filler}")
    pages = _all_pages(harness, "budget", max_packet_bytes=4096)
    for page in pages:
        assert len(canonical_json(page)) <= 4096
        assert 1 <= len(page["records"]) < 7
    seen = [record_id for page in pages for record_id in _ids(page)]
    assert sorted(seen) == sorted(record_ids)
    assert len(seen) == len(set(seen))
    ranks = [packet["rank"] for page in pages for packet in page["records"]]
    assert ranks == list(range(1, 8))
    assert seen == _ids(value_of(harness.search("budget", limit=50, max_packet_bytes=1_048_576)))


def test_search_012_default_budget_is_65536(harness: Harness) -> None:
    """SEARCH-012: without max_packet_bytes the page stays within 65,536 bytes."""
    big = "large " + "x" * 20_000
    _records(harness, 5, big)
    first = value_of(harness.search("large"))
    assert 1 <= len(first["records"]) < 5
    assert len(canonical_json(first)) <= 65_536


def test_search_013_one_record_over_the_budget(harness: Harness, spec: Spec) -> None:
    """SEARCH-013: a record that alone exceeds the budget: RESULT_TOO_LARGE, exact at the edge."""
    harness.accepted(text="oversized " + "y" * 5_000)
    size = len(canonical_json(value_of(harness.search("oversized"))))
    assert size > 4096
    assert len(canonical_json(value_of(harness.search("oversized", max_packet_bytes=size)))) == size
    envelope = harness.search("oversized", max_packet_bytes=size - 1)
    assert_error(spec, envelope, "RESULT_TOO_LARGE")
    assert_error(spec, harness.search("oversized", max_packet_bytes=4096), "RESULT_TOO_LARGE")


def test_search_014_get_projection_oversized(harness: Harness, spec: Spec) -> None:
    """SEARCH-014: get whose packet exceeds max_packet_bytes: PROJECTION_OVERSIZED, at the edge."""
    record_id = harness.accepted(text="oversized " + "y" * 5_000)
    size = len(canonical_json(value_of(harness.get(record_id))))
    assert size > 4096
    assert (
        value_of(harness.get(record_id, max_packet_bytes=size))["record"]["record_id"] == record_id
    )
    assert_error(spec, harness.get(record_id, max_packet_bytes=size - 1), "PROJECTION_OVERSIZED")
    assert_error(spec, harness.get(record_id, max_packet_bytes=4096), "PROJECTION_OVERSIZED")


# paging ------------------------------------------------------------------------------------


def test_page_001_to_003_paging_returns_every_record_once_with_global_ranks(
    harness: Harness,
) -> None:
    """PAGE-001, PAGE-002, PAGE-003: pages of 3 over 8 records: 3, 3, 2, ranks 1..8, the same
    order as one large page."""
    record_ids = _records(harness, 8)
    pages = _all_pages(harness, "shared", limit=3)
    assert [len(page["records"]) for page in pages] == [3, 3, 2]
    assert [p["rank"] for page in pages for p in page["records"]] == list(range(1, 9))
    seen = [record_id for page in pages for record_id in _ids(page)]
    assert seen == _ids(value_of(harness.search("shared", limit=50)))
    assert sorted(seen) == sorted(record_ids)


@pytest.fixture
def paged(harness: Harness) -> tuple[Harness, str]:
    """Three matching records and the cursor of the first page of one."""
    _records(harness, 3, "paged words")
    first = value_of(harness.search("paged", limit=1))
    return harness, first["next_page_cursor"]


OTHER_PARAMETERS = [
    ("PAGE-004 other query", {"query": "paged words"}),
    ("PAGE-005 other limit", {"limit": 2}),
    ("PAGE-005 limit omitted", {"limit": None}),
    ("PAGE-005 other max_packet_bytes", {"max_packet_bytes": 60_000}),
    (
        "PAGE-005 network allow",
        {"capability_policy": {"minimum_channels": "lexical", "network": "allow"}},
    ),
    ("PAGE-005 semantic", {"capability_policy": SEMANTIC}),
]


@pytest.mark.parametrize(
    ("case", "parameters"), OTHER_PARAMETERS, ids=[case for case, _ in OTHER_PARAMETERS]
)
def test_page_004_005_cursor_with_other_parameters_is_stale(
    paged: tuple[Harness, str], spec: Spec, case: str, parameters: dict[str, Any]
) -> None:
    """PAGE-004, PAGE-005: a cursor is bound to the query and every parameter."""
    harness, cursor = paged
    arguments = {"query": "paged", "limit": 1, **parameters, "page_cursor": cursor}
    arguments = {k: v for k, v in arguments.items() if v is not None}
    query = arguments.pop("query")
    assert_error(spec, harness.search(query, **arguments), "STALE_PAGE")
    assert value_of(harness.search("paged", limit=1, page_cursor=cursor))["records"]


@pytest.mark.parametrize("scope", [SCOPE_OTHER_TENANT, SCOPE_OTHER_WORKSPACE])
def test_page_cursor_of_another_scope_is_stale(
    paged: tuple[Harness, str], spec: Spec, scope: Binding
) -> None:
    """PAGE-005, SCOPE-001: a cursor used in another scope is STALE_PAGE (even with matches)."""
    harness, cursor = paged
    for _ in range(3):
        harness.accepted(scope, text="paged words")
    assert_error(spec, harness.search("paged", scope, limit=1, page_cursor=cursor), "STALE_PAGE")


def test_page_006_cursor_after_a_new_matching_record_is_stale(
    paged: tuple[Harness, str], spec: Spec
) -> None:
    """PAGE-006: an accept that enters the ordered results makes the cursor stale."""
    harness, cursor = paged
    harness.accepted(text="unrelated")
    assert value_of(harness.search("paged", limit=1, page_cursor=cursor))["records"]
    harness.accepted(text="paged words")
    assert_error(spec, harness.search("paged", limit=1, page_cursor=cursor), "STALE_PAGE")


def test_page_006_cursor_after_a_forget_is_stale(harness: Harness, spec: Spec) -> None:
    """PAGE-006: forgetting one of the results makes the cursor stale."""
    record_ids = _records(harness, 3, "paged words")
    cursor = value_of(harness.search("paged", limit=1))["next_page_cursor"]
    harness.forget(record_ids[0])
    assert_error(spec, harness.search("paged", limit=1, page_cursor=cursor), "STALE_PAGE")


def test_page_006_cursor_after_an_expiry_is_stale(harness: Harness, spec: Spec) -> None:
    """PAGE-006: a result reaching its expires_at makes the cursor stale."""
    _records(harness, 2, "paged words")
    retention = {"derivative_rule": "make-ineligible", "expires_at": harness.clock.instant(10_000)}
    harness.accepted(text="paged words", retention=retention)
    cursor = value_of(harness.search("paged", limit=1))["next_page_cursor"]
    harness.clock.advance(9_999)
    assert value_of(harness.search("paged", limit=1, page_cursor=cursor))["records"]
    harness.clock.advance(1)
    assert_error(spec, harness.search("paged", limit=1, page_cursor=cursor), "STALE_PAGE")


def _tampered(cursor: str) -> str:
    flipped = "A" if cursor[5] != "A" else "B"
    return cursor[:5] + flipped + cursor[6:]


def _with_offset(cursor: str, offset: int) -> str:
    decoded = PageCursor.decode(cursor)
    assert decoded is not None
    return PageCursor(offset, decoded.request, decoded.ordered).encode()


MALFORMED = {
    "garbage": lambda cursor: "garbage",
    "tampered": _tampered,
    "padded": lambda cursor: cursor + "=" * (-len(cursor) % 4 or 4),
    "truncated": lambda cursor: cursor[:-2],
    "appended": lambda cursor: cursor + "AA",
    "non-ascii": lambda cursor: cursor + "\u00e9",
    "json-not-a-cursor": lambda cursor: base64.urlsafe_b64encode(b'{"v":1}').decode(),
    "deeply-nested": lambda cursor: base64.urlsafe_b64encode(b"[" * 100_000).decode(),
    "offset-past-the-end": lambda cursor: _with_offset(cursor, 3),
}


@pytest.mark.parametrize("case", MALFORMED)
def test_page_007_malformed_cursor_is_stale(
    paged: tuple[Harness, str], spec: Spec, case: str
) -> None:
    """PAGE-007: a cursor the server did not issue, or an issued one altered: STALE_PAGE."""
    harness, cursor = paged
    malformed = MALFORMED[case](cursor)
    assert malformed != cursor
    with harness.writes_nothing():
        envelope = harness.search("paged", limit=1, page_cursor=malformed)
    assert_error(spec, envelope, "STALE_PAGE")


def test_page_cursor_to_an_inner_offset_is_accepted(paged: tuple[Harness, str]) -> None:
    """The reference's cursors carry their offset: an issued one for offset 2 answers rank 3."""
    harness, cursor = paged
    value = value_of(harness.search("paged", limit=1, page_cursor=_with_offset(cursor, 2)))
    assert [packet["rank"] for packet in value["records"]] == [3]


# redaction ---------------------------------------------------------------------------------


@pytest.fixture
def redacting(tmp_path: Path) -> Iterator[Harness]:
    hidden = frozenset({"trust", "citations", "record_id", "not_a_field"})
    with open_harness(tmp_path / "redacting", HostPolicy(redacted_fields=hidden)) as harness:
        yield harness


def _assert_redacted(packet: dict[str, Any], record_id: str) -> None:
    record = packet["record"]
    assert packet["redacted_fields"] == ["/citations", "/trust"]
    assert record["record_id"] == record_id
    assert "trust" not in record
    assert "citations" not in record
    assert {"components", "payload_digest", "record_digest", "recorded_at"} <= set(record)
    receipt = {
        "kind": "redaction",
        "record_id": record_id,
        "record_digest": record["record_digest"],
        "redacted_fields": packet["redacted_fields"],
    }
    assert packet["redaction_receipt_digest"] == digest(receipt)


def test_redact_001_to_003_search_packets_are_redacted(redacting: Harness) -> None:
    """REDACT-001..004: fields hidden by policy are gone and listed; record_id always stays."""
    record_id = redacting.accepted(text="redacted words")
    (packet,) = value_of(redacting.search("redacted"))["records"]
    _assert_redacted(packet, record_id)


def test_redact_001_to_003_get_is_redacted(redacting: Harness) -> None:
    record_id = redacting.accepted(text="redacted words")
    _assert_redacted(value_of(redacting.get(record_id)), record_id)


def test_redact_002_pointers_are_sorted(tmp_path: Path) -> None:
    """REDACT-002: redacted_fields is sorted whatever the policy's order."""
    hidden = frozenset({"valid_time", "components", "primary_event", "evidence"})
    with open_harness(tmp_path / "state", HostPolicy(redacted_fields=hidden)) as harness:
        record_id = harness.accepted(text="sorted words")
        packet = value_of(harness.get(record_id))
        assert packet["redacted_fields"] == ["/components", "/primary_event", "/valid_time"]


def test_redact_005_nothing_redacted_by_default(harness: Harness) -> None:
    """REDACT-005: by default every packet has redacted_fields [] and the full record."""
    record_id = harness.accepted(text="plain words")
    (packet,) = value_of(harness.search("plain"))["records"]
    assert packet["redacted_fields"] == []
    assert packet["record"] == value_of(harness.get(record_id))["record"]
    assert packet["record"]["record_digest"] == digest(
        {k: v for k, v in packet["record"].items() if k not in ("record_id", "record_digest")}
    )


def test_search_responses_are_independent_of_audit_id(harness: Harness) -> None:
    """The answer names no caller: two searches by other calls answer byte-identical values."""
    _records(harness, 2)
    first = harness.search("shared")
    second = harness.search("shared")
    assert first["auditId"] != second["auditId"]
    assert json.dumps(first["output"]) == json.dumps(second["output"])
