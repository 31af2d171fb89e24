"""Servers that break a search rule (SEARCH): what is indexed, how it is ranked and sealed, how
much a page or a packet holds, what get answers, and what a channel the server lacks answers."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from engram_conformance.spec.engram_memory import digest
from engram_conformance.spec.engram_memory.tool_names import ADMIT, CAPTURE, GET, SEARCH

from ...caught import Caught
from ..base import ServiceProxy
from ..search_answers import each_packet, ranked, refused, value_of, with_packets, with_value

MAX_PACKET_BYTES = 1_048_576


def _first_rank(envelope: dict[str, Any]) -> int:
    records = value_of(envelope)["records"]
    return records[0]["rank"] if records else 1


class SearchProxy(ServiceProxy):
    """Alters successful search answers only (``alter_search``)."""

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        if tool != SEARCH or not envelope["ok"]:
            return envelope
        return self.alter_search(arguments, envelope)

    def alter_search(self, arguments: Any, envelope: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError


class IndexesCandidatesAtCapture(ServiceProxy):
    """Captures are indexed at once, so pending content is searchable (SEARCH-001).

    The index entry is an accepted copy of the capture; the candidate itself stays pending.
    """

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        envelope = self.inner.call(tool, arguments, context)
        if tool == CAPTURE and envelope["ok"]:
            key = arguments["idempotency_key"]
            copy = {**arguments, "idempotency_key": f"index-{key}"}
            candidate_id = value_of(self.inner.call(CAPTURE, copy, context))["candidate_id"]
            admission = {"candidate_id": candidate_id, "idempotency_key": f"index-admit-{key}"}
            self.inner.call(ADMIT, admission, context)
        return envelope


class IndexesOnlyTheStart(SearchProxy):
    """The index keeps the first 64 characters of a text: later terms are not found (SEARCH-002)."""

    def alter_search(self, arguments: Any, envelope: dict[str, Any]) -> dict[str, Any]:
        words = re.findall(r"\w+", arguments["query"].lower())

        def indexed(packet: dict[str, Any]) -> bool:
            texts = [c["text"][:64].lower() for c in packet["record"].get("components", [])]
            return any(word in text for word in words for text in texts)

        kept = [p for p in value_of(envelope)["records"] if indexed(p)]
        return with_packets(envelope, ranked(kept, _first_rank(envelope)))


class RankGap(SearchProxy):
    """Ranks count a candidate dropped after ranking: they jump from 2 to 4 (SEARCH-003)."""

    def alter_search(self, arguments: Any, envelope: dict[str, Any]) -> dict[str, Any]:
        return each_packet(
            SEARCH, envelope, lambda p: {**p, "rank": p["rank"] + 1} if p["rank"] > 2 else p
        )


class RawBm25Scores(SearchProxy):
    """Scores are SQLite's raw bm25, lower is better: they increase with rank (SEARCH-003)."""

    def alter_search(self, arguments: Any, envelope: dict[str, Any]) -> dict[str, Any]:
        return each_packet(SEARCH, envelope, lambda p: {**p, "score": -p["score"]})


class TiesByDescendingId(SearchProxy):
    """Equal scores come in descending record_id order (SEARCH-004)."""

    def alter_search(self, arguments: Any, envelope: dict[str, Any]) -> dict[str, Any]:
        value = value_of(envelope)
        if "page_cursor" in arguments or "next_page_cursor" in value:
            return envelope  # on one page only, so that the order stays the same across pages
        by_id = sorted(value["records"], key=lambda p: p["record"]["record_id"], reverse=True)
        reordered = sorted(by_id, key=lambda p: -p["score"])
        return with_packets(envelope, ranked(reordered, _first_rank(envelope)))


class RankReceiptWithoutIssuedAt(SearchProxy):
    """The rank receipt leaves out issued_at (SEARCH-005)."""

    def alter_search(self, arguments: Any, envelope: dict[str, Any]) -> dict[str, Any]:
        value = value_of(envelope)
        receipt = {k: v for k, v in value["rank_receipt"].items() if k != "issued_at"}
        return with_value(SEARCH, envelope, {**value, "rank_receipt": receipt})


class ResponseDigestOfPlainJson(SearchProxy):
    """response_digest hashes json.dumps(sort_keys=True), not JCS: other separators (SEARCH-006)."""

    def alter_search(self, arguments: Any, envelope: dict[str, Any]) -> dict[str, Any]:
        value = {k: v for k, v in value_of(envelope).items() if k != "response_digest"}
        text = json.dumps(value, sort_keys=True, ensure_ascii=False).encode()
        value["response_digest"] = "sha256:" + hashlib.sha256(text).hexdigest()
        return {**envelope, "output": {**envelope["output"], "value": value}}


class RecordDigestCoversRecordId(ServiceProxy):
    """record_digest also covers record_id (SEARCH-007)."""

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        def redigested(packet: dict[str, Any]) -> dict[str, Any]:
            record = {k: v for k, v in packet["record"].items() if k != "record_digest"}
            return {**packet, "record": {**record, "record_digest": digest(record)}}

        return each_packet(tool, envelope, redigested)


class UpperCaseIdFromGet(ServiceProxy):
    """get answers the record_id in RFC 4648's upper-case base32 (SEARCH-008)."""

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        if tool != GET:
            return envelope

        def upper(value: dict[str, Any]) -> dict[str, Any]:
            record_id = value["record"]["record_id"]
            return {
                **value,
                "record": {**value["record"], "record_id": "mem_" + record_id[4:].upper()},
            }

        return each_packet(GET, envelope, upper)


class NoMatchIsNotFound(SearchProxy):
    """A search that matches nothing answers NOT_FOUND instead of an empty page (SEARCH-009)."""

    def alter_search(self, arguments: Any, envelope: dict[str, Any]) -> dict[str, Any]:
        if value_of(envelope)["records"] or "page_cursor" in arguments:
            return envelope
        return refused(envelope, "NOT_FOUND")


class SemanticRequestIsInvalid(ServiceProxy):
    """A lexical-only server answers lexical_and_semantic INVALID_SCHEMA: refused, as the seed
    wants (SEARCH-010 holds), but not RANKING_UNAVAILABLE (SEARCH-017)."""

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        if envelope["ok"] or envelope["error"]["code"] != "RANKING_UNAVAILABLE":
            return envelope
        return refused(envelope, "INVALID_SCHEMA")


class SilentLexicalFallback(ServiceProxy):
    """lexical_and_semantic is answered by the lexical ranking alone, silently (SEARCH-010)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        if tool == SEARCH and "capability_policy" in arguments:
            policy = {**arguments["capability_policy"], "minimum_channels": "lexical"}
            arguments = {**arguments, "capability_policy": policy}
        return self.inner.call(tool, arguments, context)


class NetworkAllowAsksARemoteIndex(SearchProxy):
    """network allow searches a remote index instead of the local one: no records (SEARCH-011)."""

    def alter_search(self, arguments: Any, envelope: dict[str, Any]) -> dict[str, Any]:
        if arguments.get("capability_policy", {}).get("network") != "allow":
            return envelope
        value = {k: v for k, v in value_of(envelope).items() if k != "next_page_cursor"}
        return with_value(SEARCH, envelope, {**value, "records": []})


class IgnoresTheByteBudget(ServiceProxy):
    """Pages are filled up to limit whatever max_packet_bytes says (SEARCH-012, SEARCH-013)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        if tool == SEARCH:
            arguments = {**arguments, "max_packet_bytes": MAX_PACKET_BYTES}
        return self.inner.call(tool, arguments, context)


class SkipsOversizedRecords(ServiceProxy):
    """Oversized records are skipped: an empty page instead of RESULT_TOO_LARGE (SEARCH-013)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        envelope = self.inner.call(tool, arguments, context)
        if envelope["ok"] or envelope["error"]["code"] != "RESULT_TOO_LARGE":
            return envelope
        whole = self.inner.call(tool, {**arguments, "max_packet_bytes": MAX_PACKET_BYTES}, context)
        value = {k: v for k, v in value_of(whole).items() if k != "next_page_cursor"}
        return with_value(SEARCH, whole, {**value, "records": []})


class GetIgnoresTheByteBudget(ServiceProxy):
    """get answers a record whatever max_packet_bytes says (SEARCH-014)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        if tool == GET:
            arguments = {k: v for k, v in arguments.items() if k != "max_packet_bytes"}
        return self.inner.call(tool, arguments, context)


class IgnoresLimit(ServiceProxy):
    """Every page holds up to 50 records, whatever limit says (SEARCH-015)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        if tool == SEARCH:
            arguments = {**arguments, "limit": 50}
        return self.inner.call(tool, arguments, context)


class DefaultPageOfEight(ServiceProxy):
    """An omitted limit means 8: within the seed's cap of 10, short of the page DESIGN fills
    (SEARCH-012 only)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        if tool == SEARCH and isinstance(arguments, dict) and "limit" not in arguments:
            arguments = {**arguments, "limit": 8}
        return self.inner.call(tool, arguments, context)


class GetDefaultsToTheLargestBudget(ServiceProxy):
    """get without max_packet_bytes takes 1,048,576, not 65,536 (SCHEMA-015)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        if tool == GET and isinstance(arguments, dict) and "max_packet_bytes" not in arguments:
            arguments = {**arguments, "max_packet_bytes": 1_048_576}
        return self.inner.call(tool, arguments, context)


class GetStampsLastRead(ServiceProxy):
    """get stamps last_read_at on a record read before, so reading changes it (SEARCH-016)."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.read: set[str] = set()

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        if tool != GET or not envelope["ok"]:
            return envelope
        if arguments["record_id"] not in self.read:
            self.read.add(arguments["record_id"])
            return envelope
        stamp = context.audit_id
        return each_packet(
            GET, envelope, lambda v: {**v, "record": {**v["record"], "last_read_at": stamp}}
        )


#: (mutant, what it breaks): run with the SEARCH rules.
MUTANTS: list[tuple[type, Caught]] = [
    # Search finds the accepted copies besides the records a check made: the checks that count
    # what comes back cannot go on.
    (
        IndexesCandidatesAtCapture,
        Caught(
            ("SEARCH-001",),
            undecided=(
                "SEARCH-003",
                "SEARCH-004",
                "SEARCH-011",
                "SEARCH-012",
                "SEARCH-013",
                "SEARCH-014",
                "SEARCH-016",
            ),
        ),
    ),
    (IndexesOnlyTheStart, Caught(("SEARCH-002",))),
    (RankGap, Caught(("SEARCH-003",))),
    (RawBm25Scores, Caught(("SEARCH-003",))),
    (TiesByDescendingId, Caught(("SEARCH-004",))),
    (RankReceiptWithoutIssuedAt, Caught(("SEARCH-005",))),
    (ResponseDigestOfPlainJson, Caught(("SEARCH-006",))),
    (RecordDigestCoversRecordId, Caught(("SEARCH-007",))),
    (UpperCaseIdFromGet, Caught(("SEARCH-008",))),
    # The receipt checks search for nothing first, and get an error.
    (NoMatchIsNotFound, Caught(("SEARCH-009",), undecided=("SEARCH-005", "SEARCH-006"))),
    (SemanticRequestIsInvalid, Caught(("SEARCH-017",))),
    (NetworkAllowAsksARemoteIndex, Caught(("SEARCH-011", "SEARCH-004"))),
    (IgnoresTheByteBudget, Caught(("SEARCH-012", "SEARCH-013"))),
    (SkipsOversizedRecords, Caught(("SEARCH-013",))),
    (GetIgnoresTheByteBudget, Caught(("SEARCH-014",))),
    (IgnoresLimit, Caught(("SEARCH-015", "SEARCH-012"))),
    (DefaultPageOfEight, Caught(("SEARCH-012",))),
    (GetStampsLastRead, Caught(("SEARCH-016",))),
]
#: What get defaulting to the largest budget breaks (run with that rule alone).
LARGEST_BUDGET = Caught.reported({"SCHEMA-015": "get_budget_defaults_to_65536_bytes"})
#: What a silent fallback breaks without a declared semantic channel (run with that rule alone).
FALLEN_BACK = Caught(("SEARCH-010",))
