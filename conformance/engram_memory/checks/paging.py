"""Checks of the paging rules: cursors continue a result, and are bound to what they page through.

A cursor belongs to one query, one set of parameters and one ordered result list; used with
anything else, or altered, it is STALE_PAGE (DESIGN.md, Decisions / Search and Finer points).
"""

from __future__ import annotations

from collections import Counter
from itertools import pairwise
from typing import Any

from engram_conformance.strategies.engram_memory import envelopes

from ...observation import Observation
from .answers import DEFAULT_MAX_PACKET_BYTES, LEXICAL, accept_all, ids, packets, searched
from .context import ADMIT, CAPTURE, FORGET, SEARCH, CheckContext
from .lifecycle_steps import expiring, outcome, wait_past
from .registry import check

#: Parameters stated in full, so that changing one cannot be read as restating a default.
PARAMETERS: dict[str, Any] = {
    "limit": 2,
    "max_packet_bytes": DEFAULT_MAX_PACKET_BYTES,
    "capability_policy": LEXICAL,
}
TOOLS = (SEARCH, CAPTURE, ADMIT)


async def _cursor(ctx: CheckContext, label: str) -> tuple[str, list[str], str]:
    """A term, the four records carrying it, and the cursor of a first page of two."""
    term = ctx.unique(label)
    record_ids = await accept_all(ctx, [f"{label} {term} {n}" for n in range(4)])
    _, cursor = await _first_page(ctx, term)
    return term, record_ids, cursor


async def _first_page(ctx: CheckContext, term: str) -> tuple[list[Any], str]:
    """The ids of a first page of two and its cursor, which continues the same search (the
    control of the checks that use it otherwise and expect STALE_PAGE)."""
    first = await searched(ctx, term, **PARAMETERS)
    cursor = envelopes.value(first).get("next_page_cursor")
    ctx.require(isinstance(cursor, str), "a first page of 2 of 4 records has no cursor", first)
    assert isinstance(cursor, str)
    control = await ctx.search(term, page_cursor=cursor, **PARAMETERS)
    ctx.require_accepted(control, "the cursor used with its own query and parameters (the control)")
    return ids(first), cursor


def _stale(ctx: CheckContext, rule: str, answer: Observation, used: str) -> None:
    ctx.expect(
        rule,
        envelopes.code(answer) == "STALE_PAGE",
        expected=f"STALE_PAGE for {used}",
        observed=answer,
    )


@check(rules=("PAGE-001", "PAGE-002", "PAGE-003"), tools=TOOLS)
async def following_cursors_returns_every_record_once(ctx: CheckContext) -> None:
    """Twelve records in pages of five, against one page holding them all."""
    term = ctx.unique("pages")
    record_ids = await accept_all(ctx, [f"pages {term} {n}" for n in range(12)])
    whole = ids(await searched(ctx, term, limit=50))
    ctx.require(Counter(whole) == Counter(record_ids), "search missed records", whole)
    pages = [await searched(ctx, term, limit=5)]
    ctx.require(
        isinstance(envelopes.value(pages[0]).get("next_page_cursor"), str),
        "no cursor after 5 of 12",
        pages[0],
    )
    while (cursor := envelopes.value(pages[-1]).get("next_page_cursor")) is not None:
        if len(pages) > len(record_ids):  # cursors that never end: judge what came
            break
        following = await ctx.search(term, limit=5, page_cursor=cursor)
        ctx.expect(
            "PAGE-001",
            envelopes.ok(following),
            expected=f"page {len(pages) + 1}: ok true",
            observed=following,
        )
        ctx.require(
            envelopes.ok(following), "a page failed: the pages cannot be compared", following
        )
        pages.append(following)
    paged = [record_id for page in pages for record_id in ids(page)]
    ctx.expect(
        "PAGE-002",
        Counter(paged) == Counter(whole),
        expected=f"each of the {len(whole)} records exactly once across the pages",
        observed=[ids(page) for page in pages],
    )
    ranks = [[p.get("rank") for p in packets(page)] for page in pages]
    for before, after in pairwise(ranks):
        ctx.expect(
            "PAGE-003",
            _continues(before, after),
            expected="each page's first rank is the last rank before it plus one",
            observed=ranks,
        )


@check(rules=("PAGE-004",), tools=TOOLS)
async def cursor_is_bound_to_its_query(ctx: CheckContext) -> None:
    """The other query matches the very same records; only the query text differs."""
    term, _, cursor = await _cursor(ctx, "query")
    answer = await ctx.search(f"query {term}", page_cursor=cursor, **PARAMETERS)
    _stale(ctx, "PAGE-004", answer, "a cursor used with another query")


@check(rules=("PAGE-005",), tools=TOOLS)
async def cursor_is_bound_to_its_parameters(ctx: CheckContext) -> None:
    term, _, cursor = await _cursor(ctx, "parameters")
    changes: dict[str, Any] = {
        "limit": 3,
        "max_packet_bytes": 60_000,
        "capability_policy": {**LEXICAL, "network": "allow"},
    }
    for name, value in changes.items():
        answer = await ctx.search(term, **{**PARAMETERS, name: value}, page_cursor=cursor)
        _stale(ctx, "PAGE-005", answer, f"a cursor used with another {name}")


@check(rules=("PAGE-006",), tools=TOOLS)
async def cursor_goes_stale_when_results_change(ctx: CheckContext) -> None:
    """A new matching record accepted, then (where forget is offered) one forgotten."""
    term, record_ids, cursor = await _cursor(ctx, "changed")
    await ctx.accepted(f"changed {term} later")
    answer = await ctx.search(term, page_cursor=cursor, **PARAMETERS)
    _stale(ctx, "PAGE-006", answer, "a cursor used after a new matching record was accepted")
    if FORGET not in ctx.claimed_tools:
        return
    first_page, cursor = await _first_page(ctx, term)
    later = [record_id for record_id in record_ids if record_id not in first_page]
    ctx.require(bool(later), "a first page of 2 held all 4 records", first_page)
    forgotten = await ctx.forget(later[0])
    ctx.require(envelopes.ok(forgotten), "forget of a current record failed", forgotten)
    answer = await ctx.search(term, page_cursor=cursor, **PARAMETERS)
    _stale(ctx, "PAGE-006", answer, "a cursor used after a record it pages through was forgotten")


@check(rules=("PAGE-006",), tools=TOOLS, profile="full", waits=True)
async def cursor_goes_stale_when_a_record_expires(ctx: CheckContext) -> None:
    """Four matching records, one whose retention ends in about two seconds: a first page's
    cursor, used once that record has expired, pages through a list that changed (it waits, so
    it runs in the full profile)."""
    term = ctx.unique("expiry")
    await accept_all(ctx, [f"expiry {term} {n}" for n in range(3)])
    arguments, expires_ms = expiring(ctx, f"expiry {term} soon")
    captured = await ctx.capture(arguments)
    ctx.require(envelopes.ok(captured), "a capture expiring soon failed", captured)
    admitted = await ctx.admit(envelopes.value(captured).get("candidate_id"))
    ctx.require(outcome(admitted).get("status") == "accepted", "it was not accepted", admitted)
    _, cursor = await _first_page(ctx, term)
    await wait_past(ctx, expires_ms)
    answer = await ctx.search(term, page_cursor=cursor, **PARAMETERS)
    _stale(ctx, "PAGE-006", answer, "a cursor used after a record it pages through expired")


@check(rules=("PAGE-007",), tools=TOOLS)
async def malformed_cursor_is_stale(ctx: CheckContext) -> None:
    term, _, cursor = await _cursor(ctx, "malformed")
    middle = len(cursor) // 2
    altered = cursor[:middle] + ("B" if cursor[middle] == "A" else "A") + cursor[middle + 1 :]
    for used, sent in (
        ("a cursor the server never issued", ctx.unique("cursor")),
        ("an issued cursor with one character changed", altered),
        ("an issued cursor cut short by one character", cursor[:-1]),
    ):
        answer = await ctx.search(term, page_cursor=sent, **PARAMETERS)
        _stale(ctx, "PAGE-007", answer, used)


def _continues(before: list[Any], after: list[Any]) -> bool:
    """Whether the page ranked ``after`` starts at the rank after the last one of ``before``."""
    ranks = before[-1:] + after[:1]
    return len(ranks) == 2 and all(type(r) is int for r in ranks) and ranks[1] == ranks[0] + 1
