"""Checks of the search rules: visibility, ranking, receipts and digests, byte budgets, limits.

Each check writes the records it searches for in its own scope, every one carrying a run-unique
term, so that what a search answers can be compared with exactly what was written. The helpers
it shares with the paging and redaction checks are in ``answers``.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import pairwise
from typing import Any, TypeGuard

from engram_conformance.spec.engram_memory import digest
from engram_conformance.strategies.engram_memory import envelopes

from ...observation import Observation
from .answers import (
    DEFAULT_MAX_PACKET_BYTES,
    LEXICAL,
    accept_all,
    ids,
    packets,
    read,
    record_of,
    searched,
    size,
    without,
)
from .context import ADMIT, CAPTURE, FORGET, GET, SEARCH, WITHDRAW, CheckContext
from .registry import check

RECORD_ID = re.compile(r"mem_[a-z2-7]+")
RANK_RECEIPT_FIELDS = (
    "profile",
    "profile_version",
    "candidate_count",
    "ordered_ids_digest",
    "issued_at",
    "receipt_digest",
)
DEFAULT_LIMIT = 10
#: The admission outcomes that decide a candidate that was pending.
DECISIONS = ("accepted", "rejected", "pending_adjudication")
MIN_PACKET_BYTES = 4_096
MAX_PACKET_BYTES = 1_048_576
DEFAULT_PACKET_BYTES = 65_536
TEXT_MAX_BYTES = 65_536
#: Filler words: long texts that match nothing but the term they carry.
FILLER = "plain filler words "
#: A credential the reference admission policy rejects (contract text, section 4).
CREDENTIAL = "password=conformance-secret-value"


# checks ----------------------------------------------------------------------------------------
@check(rules=("SEARCH-001",), tools=(SEARCH, GET, CAPTURE, ADMIT))
async def only_current_records_are_revealed(ctx: CheckContext) -> None:
    """A current record shares a term with a pending, a withdrawn, a rejected and a forgotten one.

    The search for the term must answer the current record alone, and get of the forgotten
    record NOT_FOUND (once get of the current one answers it, the control). Withdraw and
    forget are used when the target offers them, the rejected
    candidate when its policy rejects credentials. Expired records need a wait: the retention
    and lifecycle checks cover them (RET-006, LIFE-018).
    """
    term = ctx.unique("visible")
    current = await ctx.accepted(f"current {term}")
    visible = {current}
    await ctx.pending(f"pending {term}")
    if WITHDRAW in ctx.claimed_tools:
        withdrawn = await ctx.withdraw(await ctx.pending(f"withdrawn {term}"))
        ctx.require(envelopes.ok(withdrawn), "withdraw of a pending candidate failed", withdrawn)
    if ctx.policy.rejects_secrets:
        decided = await ctx.admit(await ctx.pending(f"rejected {term} {CREDENTIAL}"))
        outcome = envelopes.value(decided).get("outcome", {})
        if outcome.get("status") == "accepted":  # PRIV-006 judges that; here it is just current
            visible.add(outcome.get("record_id"))
    forgotten = None
    if FORGET in ctx.claimed_tools:
        forgotten = await ctx.accepted(f"forgotten {term}")
        tombstoned = await ctx.forget(forgotten)
        ctx.require(envelopes.ok(tombstoned), "forget of a current record failed", tombstoned)
    found = ids(await searched(ctx, term, limit=50))
    ctx.require(current in found, "search did not find the current record", found)
    ctx.expect(
        "SEARCH-001",
        set(found) <= visible,
        expected="no record but the current ones",
        observed={"current": list(visible), "found": found},
    )
    if forgotten is not None:
        control = await ctx.get(current)
        ctx.require_accepted(control, f"get of the current record {current} (the control)")
        answer = await ctx.get(forgotten)
        ctx.expect(
            "SEARCH-001",
            envelopes.code(answer) == "NOT_FOUND",
            expected="get of a forgotten record: NOT_FOUND",
            observed=answer,
        )


@check(rules=("SEARCH-002",), tools=(SEARCH, CAPTURE, ADMIT))
async def distinctive_term_finds_its_record(ctx: CheckContext) -> None:
    """The term opens a text, sits in the middle of a long one, and closes another."""
    padding = FILLER * 100
    placements = {
        "first": "{term} " + padding,
        "middle": padding + "{term} " + padding,
        "last": padding + "{term}",
    }
    for place, text in placements.items():
        term = ctx.unique(place)
        record_id = await ctx.accepted(text.format(term=term))
        found = ids(await searched(ctx, term))
        ctx.expect(
            "SEARCH-002",
            record_id in found,
            expected=f"the record whose text has the term {place} is found",
            observed=found,
        )


@check(rules=("SEARCH-003",), tools=(SEARCH, CAPTURE, ADMIT))
async def ranks_are_dense_and_scores_do_not_increase(ctx: CheckContext) -> None:
    """Records carrying the term once, twice and thrice: the ranking tells them apart."""
    term = ctx.unique("rank")
    await accept_all(ctx, [f"ranked note {term} " * times for times in (1, 2, 3)])
    page = packets(await searched(ctx, term))
    ctx.require(len(page) == 3, "search did not find the three records", page)
    ranks = [p.get("rank") for p in page]
    ctx.expect(
        "SEARCH-003",
        ranks == list(range(1, len(page) + 1)),
        expected=f"ranks 1..{len(page)} in packet order",
        observed=ranks,
    )
    scores = [p.get("score") for p in page]
    ctx.require(all(_is_number(s) for s in scores), "scores are not all numbers", scores)
    numbers = [s for s in scores if _is_number(s)]  # all of them
    ctx.expect(
        "SEARCH-003",
        all(higher >= lower for higher, lower in pairwise(numbers)),
        expected="scores that do not increase with rank",
        observed=scores,
    )


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


@check(rules=("SEARCH-004",), tools=(SEARCH, CAPTURE, ADMIT))
async def equal_scores_are_ordered_by_record_id(ctx: CheckContext) -> None:
    """Identical texts score alike under a lexical ranking, so they give ties to judge.

    A ranking that still tells identical texts apart leaves the rule undecided (error).
    """
    term = ctx.unique("tie")
    await accept_all(ctx, [f"tied {term} note"] * 4)
    page = packets(await searched(ctx, term))
    ties = [(a, b) for a, b in pairwise(page) if a.get("score") == b.get("score")]
    ctx.require(bool(ties), "no two of four identical texts got equal scores", page)
    for first, second in ties:
        pair = [record_of(first).get("record_id"), record_of(second).get("record_id")]
        texts = [i for i in pair if isinstance(i, str)]
        ctx.expect(
            "SEARCH-004",
            len(texts) == len(pair) and texts == sorted(texts),
            expected="equal scores in ascending record_id order",
            observed=pair,
        )


@check(rules=("SEARCH-005", "SEARCH-006"), tools=(SEARCH, CAPTURE, ADMIT))
async def search_answers_carry_receipt_and_digest(ctx: CheckContext) -> None:
    """A first page, the page its cursor leads to, and a search that matches nothing."""
    term = ctx.unique("receipt")
    await accept_all(ctx, [f"receipt {term} {n}" for n in range(3)])
    first = await searched(ctx, term, limit=2)
    answers = [first, await searched(ctx, ctx.unique("nothing"))]
    cursor = envelopes.value(first).get("next_page_cursor")
    if isinstance(cursor, str):
        answers.append(await searched(ctx, term, limit=2, page_cursor=cursor))
    for answer in answers:
        value = envelopes.value(answer)
        receipt = value.get("rank_receipt")
        missing = [
            f for f in RANK_RECEIPT_FIELDS if not isinstance(receipt, dict) or f not in receipt
        ]
        ctx.expect(
            "SEARCH-005",
            not missing,
            expected=f"a rank_receipt with {', '.join(RANK_RECEIPT_FIELDS)}",
            observed=f"missing {missing} in {receipt}" if missing else receipt,
        )
        wanted = digest(without(value, "response_digest"))
        ctx.expect(
            "SEARCH-006",
            value.get("response_digest") == wanted,
            expected=f"response_digest {wanted} (JCS of the value without it)",
            observed=repr(value.get("response_digest")),
        )


@check(rules=("SEARCH-007",), tools=(SEARCH, GET, CAPTURE, ADMIT))
async def record_digest_covers_the_record(ctx: CheckContext) -> None:
    """Judged on the unredacted records of a search and of get."""
    term = ctx.unique("digest")
    record_ids = await accept_all(ctx, [f"digest {term} {n}" for n in range(2)])
    answers = [*packets(await searched(ctx, term))]
    answers += [envelopes.value(await read(ctx, record_id)) for record_id in record_ids]
    whole = [record_of(p) for p in answers if p.get("redacted_fields") == []]
    if not whole and ctx.policy.redacted_fields:
        ctx.not_applicable(
            "SEARCH-007",
            f"the target's policy redacts {sorted(ctx.policy.redacted_fields)}: "
            "no record came back whole, so record_digest cannot be recomputed",
        )
        return
    ctx.require(bool(whole), "no record came back unredacted", answers)
    for record in whole:
        wanted = digest(without(record, "record_id", "record_digest"))
        ctx.expect(
            "SEARCH-007",
            record.get("record_digest") == wanted,
            expected=f"record_digest {wanted} (JCS of the record without record_id and it)",
            observed=repr(record.get("record_digest")),
        )


@check(rules=("SEARCH-008",), tools=(SEARCH, GET, CAPTURE, ADMIT))
async def record_ids_match_the_pattern(ctx: CheckContext) -> None:
    """The ids request_admission answers, and those search and get answer for them."""
    term = ctx.unique("pattern")
    admitted = await accept_all(ctx, [f"pattern {term} {n}" for n in range(2)])
    # each tool's record ids as it answered them, judged below
    seen: list[tuple[str, Any]] = [("request_admission", record_id) for record_id in admitted]
    seen += [("search", record_id) for record_id in ids(await searched(ctx, term))]
    for record_id in admitted:
        answer = await ctx.get(record_id)
        # an id off the pattern cannot be read back: its admission fails below
        if envelopes.ok(answer):
            seen.append(("get", record_of(envelopes.value(answer)).get("record_id")))
    for tool, record_id in seen:
        ctx.expect(
            "SEARCH-008",
            isinstance(record_id, str) and RECORD_ID.fullmatch(record_id) is not None,
            expected=f"{tool}: a record_id matching ^mem_[a-z2-7]+$",
            observed=repr(record_id),
        )


@check(rules=("SEARCH-009",), tools=(SEARCH, CAPTURE, ADMIT))
async def search_without_match_answers_an_empty_page(ctx: CheckContext) -> None:
    """The scope holds a record; the query shares no word with it."""
    await ctx.accepted(f"unrelated {ctx.unique('present')}")
    answer = await ctx.search(ctx.unique("absent"))
    ctx.expect(
        "SEARCH-009",
        envelopes.ok(answer)
        and envelopes.value(answer).get("records") == []
        and "rank_receipt" in envelopes.value(answer),
        expected="ok true with records [] and a rank_receipt",
        observed=answer,
    )


@check(rules=("SEARCH-010", "SEARCH-017"), tools=(SEARCH, CAPTURE, ADMIT))
async def semantic_ranking_is_never_silently_dropped(ctx: CheckContext) -> None:
    """lexical_and_semantic is refused, unless the deployment has a semantic channel.

    A result does not show which channels ranked it, so the target descriptor says whether the
    deployment has a semantic channel (``[policy] semantic_channel``, default false). Without
    one, an ok answer is the silent lexical fallback the seed forbids (SEARCH-010). With one, an
    ok answer is expected. A refusal is RANKING_UNAVAILABLE with retriable true (SEARCH-017:
    DESIGN's code, also for a channel that does not exist at all). The same search asking for
    lexical ranking only, the control, must answer ok first.
    """
    term = ctx.unique("semantic")
    await ctx.accepted(f"semantic {term}")
    control = await ctx.search(term, capability_policy=LEXICAL)
    ctx.require_accepted(control, "the search asking for lexical ranking only (the control)")
    policy = {**LEXICAL, "minimum_channels": "lexical_and_semantic"}
    answer = await ctx.search(term, capability_policy=policy)
    if envelopes.ok(answer):
        ctx.expect(
            "SEARCH-010",
            ctx.policy.semantic_channel,
            expected="RANKING_UNAVAILABLE: the target declares no semantic channel",
            observed=answer,
        )
        return
    ctx.expect(
        "SEARCH-010",
        answer.outcome == "result" and (envelopes.envelope(answer) or {}).get("ok") is False,
        expected="an error envelope, or a semantic result",
        observed=answer,
    )
    error = (envelopes.envelope(answer) or {}).get("error") or {}
    ctx.expect(
        "SEARCH-017",
        envelopes.code(answer) == "RANKING_UNAVAILABLE" and error.get("retriable") is True,
        expected="RANKING_UNAVAILABLE with retriable true",
        observed=answer,
    )


@check(rules=("SEARCH-011", "SEARCH-004"), tools=(SEARCH, CAPTURE, ADMIT))
async def network_allow_grants_nothing(ctx: CheckContext) -> None:
    term = ctx.unique("network")
    record_ids = await accept_all(ctx, [f"network {term} {n}" for n in range(3)])
    forbidden = ids(await searched(ctx, term, capability_policy=LEXICAL))
    ctx.require(Counter(forbidden) == Counter(record_ids), "search missed records", forbidden)
    allowed = await ctx.search(term, capability_policy={**LEXICAL, "network": "allow"})
    ctx.expect(
        "SEARCH-011",
        envelopes.ok(allowed) and Counter(ids(allowed)) == Counter(forbidden),
        expected=f"network allow answers the records {sorted(forbidden)}, as network forbid does",
        observed=ids(allowed) if envelopes.ok(allowed) else allowed,
    )
    if envelopes.ok(allowed):
        ctx.expect(
            "SEARCH-004",
            ids(allowed) == forbidden,
            expected=f"network allow answers them in the order network forbid does: {forbidden}",
            observed=ids(allowed),
        )


@check(rules=("SEARCH-012",), tools=(SEARCH, CAPTURE, ADMIT))
async def pages_are_cut_to_the_byte_budget(ctx: CheckContext) -> None:
    """Four records of about 20 KB each, more than the default 65,536 bytes or 30,000 hold.

    Each page stays within its budget; when the whole result does not fit, the page is cut,
    and its cursor continues with the first record it left out. The records carry the term
    one to four times, so that their order does not rest on how ties are broken.
    """
    term = ctx.unique("budget")
    texts = [f"budget {term} " * times + FILLER * 1000 for times in range(1, 5)]
    await accept_all(ctx, texts)
    whole = await searched(ctx, term, limit=50, max_packet_bytes=MAX_PACKET_BYTES)
    ordered = ids(whole)
    ctx.require(len(ordered) == 4, "search did not find the four records", ordered)
    for budget in (None, 30_000):
        arguments = {} if budget is None else {"max_packet_bytes": budget}
        allowed = budget or DEFAULT_MAX_PACKET_BYTES
        page = await searched(ctx, term, **arguments)
        _within(ctx, page, allowed)
        if size(envelopes.value(whole)) <= allowed:
            continue
        cut = ids(page)
        cursor = envelopes.value(page).get("next_page_cursor")
        ctx.expect(
            "SEARCH-012",
            len(cut) < len(ordered) and isinstance(cursor, str),
            expected=f"a page cut below {len(ordered)} records, with next_page_cursor",
            observed=f"{len(cut)} records, next_page_cursor {cursor!r}",
        )
        if isinstance(cursor, str):
            following = await searched(ctx, term, page_cursor=cursor, **arguments)
            _within(ctx, following, allowed)
            ctx.expect(
                "SEARCH-012",
                ids(following)[:1] == ordered[len(cut) : len(cut) + 1],
                expected="the next page begins with the first record the page left out",
                observed={"ranked": ordered, "page": cut, "next page": ids(following)},
            )


def _within(ctx: CheckContext, page: Observation, budget: int) -> None:
    ctx.expect(
        "SEARCH-012",
        size(envelopes.value(page)) <= budget,
        expected=f"an output value of at most {budget} JCS bytes",
        observed=f"{size(envelopes.value(page))} bytes",
    )


@check(rules=("SEARCH-013", "SEARCH-014"), tools=(SEARCH, GET, CAPTURE, ADMIT))
async def records_beyond_the_budget_are_refused(ctx: CheckContext) -> None:
    """A record of about 10 KB against the smallest budget, 4,096 bytes."""
    term = ctx.unique("oversized")
    record_id = await ctx.accepted(f"oversized {term} " + FILLER * 500)
    whole = packets(await searched(ctx, term, max_packet_bytes=MAX_PACKET_BYTES))
    ctx.require(len(whole) == 1, "search did not find the record", whole)
    refused = await ctx.search(term, max_packet_bytes=MIN_PACKET_BYTES)
    _refused(ctx, "SEARCH-013", size(whole[0]), refused, "RESULT_TOO_LARGE")
    full = await read(ctx, record_id)
    refused = await ctx.get(record_id, max_packet_bytes=MIN_PACKET_BYTES)
    _refused(ctx, "SEARCH-014", size(envelopes.value(full)), refused, "PROJECTION_OVERSIZED")


@check(rules=("SCHEMA-015",), tools=(GET, CAPTURE, ADMIT))
async def get_budget_defaults_to_65536_bytes(ctx: CheckContext) -> None:
    """A record whose packet is a little over 65,536 bytes (one text at its 65,536-byte bound):
    get without max_packet_bytes refuses it, get with the largest budget returns it."""
    text = f"large {ctx.unique('large')} "
    record_id = await ctx.accepted(text + "x" * (TEXT_MAX_BYTES - len(text)))
    whole = await ctx.get(record_id, max_packet_bytes=MAX_PACKET_BYTES)
    ctx.require(envelopes.ok(whole), "get with the largest budget failed", whole)
    if size(envelopes.value(whole)) <= DEFAULT_PACKET_BYTES:
        ctx.require(bool(ctx.policy.redacted_fields), "a 65 KB record came back small", whole)
        ctx.not_applicable("SCHEMA-015", "redaction leaves the packet within 65,536 bytes")
        return
    default = await ctx.get(record_id)
    ctx.expect(
        "SCHEMA-015",
        envelopes.code(default) == "PROJECTION_OVERSIZED",
        expected=f"PROJECTION_OVERSIZED without max_packet_bytes (65,536 by default) for a "
        f"packet of {size(envelopes.value(whole))} bytes",
        observed=default,
    )


def _refused(
    ctx: CheckContext, rule: str, packet_size: int, answer: Observation, code: str
) -> None:
    """``code`` for a packet of ``packet_size`` bytes at the smallest budget.

    Only a redacting policy can leave a 10 KB record small enough to fit: then the rule has
    nothing to judge.
    """
    if packet_size <= MIN_PACKET_BYTES:
        ctx.require(bool(ctx.policy.redacted_fields), "a 10 KB record came back small", answer)
        ctx.not_applicable(
            rule, f"redaction leaves the record's packet {packet_size} bytes: it fits 4,096"
        )
        return
    ctx.expect(
        rule,
        envelopes.code(answer) == code,
        expected=f"{code} at max_packet_bytes 4096 for a packet of {packet_size} bytes",
        observed=answer,
    )


@check(rules=("SEARCH-015", "SEARCH-012"), tools=(SEARCH, CAPTURE, ADMIT))
async def limit_caps_the_page(ctx: CheckContext) -> None:
    """Twelve small matching records: more than the default limit. The seed caps the page
    (SEARCH-015); that the page is filled and a cursor continues it is DESIGN's (SEARCH-012)."""
    term = ctx.unique("limit")
    await accept_all(ctx, [f"limit {term} {n}" for n in range(12)])
    default = await searched(ctx, term)
    shown = (
        f"{len(packets(default))} records, "
        f"next_page_cursor {envelopes.value(default).get('next_page_cursor')!r}"
    )
    ctx.expect(
        "SEARCH-015",
        len(packets(default)) <= DEFAULT_LIMIT,
        expected=f"limit omitted: at most {DEFAULT_LIMIT} of 12 records",
        observed=shown,
    )
    ctx.expect(
        "SEARCH-012",
        len(packets(default)) == DEFAULT_LIMIT and "next_page_cursor" in envelopes.value(default),
        expected=f"limit omitted: the page filled with {DEFAULT_LIMIT} of the 12 small records, "
        "and a next_page_cursor",
        observed=shown,
    )
    limited = packets(await searched(ctx, term, limit=3))
    ctx.expect(
        "SEARCH-015",
        len(limited) <= 3,
        expected="limit 3: at most 3 records",
        observed=f"{len(limited)} records",
    )


@check(rules=("SEARCH-016", "SEARCH-004"), tools=(SEARCH, GET, CAPTURE, ADMIT))
async def search_and_get_are_read_only(ctx: CheckContext) -> None:
    """The same search and get twice, over current records and a pending candidate.

    Both answers must be the same records (SEARCH-016), in the same order (SEARCH-004's
    determinism), and the candidate still pending afterwards: its admission then decides it.
    """
    term = ctx.unique("readonly")
    record_ids = await accept_all(ctx, [f"readonly {term} {n}" for n in range(3)])
    candidate = await ctx.pending(f"readonly {term} pending")
    first_search, first_get = await _reads(ctx, term, record_ids[0])
    ctx.require(len(first_search) == 3, "search did not find the three records", first_search)
    second_search, second_get = await _reads(ctx, term, record_ids[0])
    first_by_id, second_by_id = (sorted(r, key=_by_id) for r in (first_search, second_search))
    ctx.expect(
        "SEARCH-016",
        second_by_id == first_by_id,
        expected="a repeated search answers the same records",
        observed={
            "record ids": [[_by_id(r) for r in first_by_id], [_by_id(r) for r in second_by_id]],
            "fields changed": [
                _changed(a, b) for a, b in zip(first_by_id, second_by_id, strict=False)
            ],
        },
    )
    ctx.expect(
        "SEARCH-004",
        [_by_id(r) for r in second_search] == [_by_id(r) for r in first_search],
        expected="a repeated search answers the same records in the same order",
        observed=[[_by_id(r) for r in first_search], [_by_id(r) for r in second_search]],
    )
    ctx.expect(
        "SEARCH-016",
        second_get == first_get,
        expected="a repeated get answers the same record",
        observed={"fields changed": _changed(first_get, second_get)},
    )
    admitted = await ctx.admit(candidate)
    status = envelopes.value(admitted).get("outcome", {}).get("status")
    ctx.expect(
        "SEARCH-016",
        status in DECISIONS,
        expected=f"the candidate is still pending after the reads: its admission answers one "
        f"of {DECISIONS}",
        observed=admitted,
    )


async def _reads(
    ctx: CheckContext, term: str, record_id: str
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The records a search for ``term`` answers, and the record get answers for ``record_id``."""
    found = await searched(ctx, term)
    return [record_of(p) for p in packets(found)], record_of(
        envelopes.value(await read(ctx, record_id))
    )


def _by_id(record: dict[str, Any]) -> str:
    return str(record.get("record_id"))


def _changed(first: dict[str, Any], second: dict[str, Any]) -> list[str]:
    """The top-level fields whose values differ between two records."""
    return sorted(k for k in first.keys() | second.keys() if first.get(k) != second.get(k))
