"""engram_memory_search: lexical ranking (SQLite FTS5 BM25), pages cut to the byte budget.

Ranks are global across pages; scores do not increase; equal scores are ordered by record_id.
A page holds at most ``limit`` records and as many as fit in ``max_packet_bytes`` (JCS bytes of
the whole output value); a record that alone does not fit is RESULT_TOO_LARGE.
"""

from __future__ import annotations

import re
from typing import Any

from engram_conformance.spec.engram_memory import canonical_json, digest, instant

from ..envelope import Refusal
from ..paging import PageCursor
from ..records import sealed_digest
from ..redaction import packet
from .call import Call

PROFILE = "engram-reference:fts5-bm25"
PROFILE_VERSION = "1.0.0"
#: At most this many ranked candidates per search, as the upstream engine caps them.
CANDIDATE_CAP = 2000
MAX_QUERY_TERMS = 64
DEFAULT_LIMIT = 10
DEFAULT_MAX_PACKET_BYTES = 65_536
_TERM = re.compile(r"\w+")
_DIGEST_PLACEHOLDER = "sha256:" + "0" * 64


def fts_query(text: str) -> str | None:
    """An FTS5 query matching any word of ``text`` (each quoted, so no FTS syntax gets through)."""
    terms = list(dict.fromkeys(_TERM.findall(text.lower())))[:MAX_QUERY_TERMS]
    return " OR ".join(f'"{term}"' for term in terms) or None


def search(call: Call) -> dict[str, Any]:
    arguments = call.arguments
    limit = int(arguments.get("limit", DEFAULT_LIMIT))
    budget = int(arguments.get("max_packet_bytes", DEFAULT_MAX_PACKET_BYTES))
    policy = {"minimum_channels": "lexical", "network": "forbid"}
    policy |= arguments.get("capability_policy", {})
    request = digest(
        {
            "scope": list(call.scope),
            "query": arguments["query"],
            "purpose_ref": arguments["purpose_ref"],
            "limit": limit,
            "max_packet_bytes": budget,
            "capability_policy": policy,
        }
    )
    cursor = None
    if "page_cursor" in arguments:
        cursor = PageCursor.decode(arguments["page_cursor"])
        if cursor is None or cursor.request != request:
            raise Refusal("STALE_PAGE")
    if policy["minimum_channels"] != "lexical":
        raise Refusal("RANKING_UNAVAILABLE")  # no semantic channel here, and no silent fallback
    match = fts_query(arguments["query"])
    ranked = call.store.matching(call.scope, match, call.now_ms, CANDIDATE_CAP) if match else []
    ordered = digest([record_id for record_id, _ in ranked])
    offset = 0
    if cursor is not None:
        if cursor.ordered != ordered or cursor.offset >= len(ranked):
            raise Refusal("STALE_PAGE")
        offset = cursor.offset
    window = ranked[offset : offset + limit]
    bodies = call.store.records_by_id(call.scope, [record_id for record_id, _ in window])
    packets = [
        {**packet(bodies[record_id], call.policy.redacted_fields), "score": score, "rank": rank}
        for rank, (record_id, score) in enumerate(window, start=offset + 1)
    ]
    receipt = sealed_digest(
        {
            "profile": PROFILE,
            "profile_version": PROFILE_VERSION,
            "candidate_count": len(ranked),
            "ordered_ids_digest": ordered,
            "issued_at": instant(call.now_ms),
        },
        "receipt_digest",
    )
    page = _fit(packets, receipt, offset, len(ranked), request, ordered, budget)
    return sealed_digest(page, "response_digest")


def _fit(
    packets: list[dict[str, Any]],
    receipt: dict[str, Any],
    offset: int,
    total: int,
    request: str,
    ordered: str,
    budget: int,
) -> dict[str, Any]:
    """The page with as many packets as fit in ``budget`` JCS bytes (the array is their join)."""
    sizes = [len(canonical_json(p)) for p in packets]

    def skeleton(count: int) -> dict[str, Any]:
        value: dict[str, Any] = {"records": [], "rank_receipt": receipt}
        if offset + count < total:
            value["next_page_cursor"] = PageCursor(offset + count, request, ordered).encode()
        return {**value, "response_digest": _DIGEST_PLACEHOLDER}

    for count in range(len(packets), 0, -1):
        size = len(canonical_json(skeleton(count))) + sum(sizes[:count]) + count - 1
        if size <= budget:
            return {**skeleton(count), "records": packets[:count]}
    if packets:
        raise Refusal("RESULT_TOO_LARGE")
    return skeleton(0)
