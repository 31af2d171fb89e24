"""Checks of the scope rules (SCOPE): tenant and workspace isolation, shared memory within a scope.

Every foreign identity keeps the owner's principal name (and agent, session and purpose), so that
only the scope tells the two apart: a server that keyed anything by principal alone would show it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from engram_conformance.strategies.engram_memory import envelopes
from engram_conformance.strategies.engram_memory.answers import effect

from ...observation import Observation
from ..host import Identity
from .calls import ALL_TOOLS
from .context import ADMIT, CAPTURE, FORGET, GET, SEARCH, WITHDRAW, CheckContext
from .delivery import kept_its_state, send, unknown_target
from .lifecycle_steps import require_admission_accepted
from .registry import check

NOT_FOUND = "NOT_FOUND"
#: A word of every capture text the checks' default helpers write (``note <token>``).
COMMON_WORD = "note"


def neighbours(ctx: CheckContext) -> dict[str, tuple[Identity, tuple[str, ...]]]:
    """Scopes next to the check's own, each with the rules its isolation decides."""
    owner, fresh = ctx.identity, ctx.new_identity()
    return {
        "another tenant, same workspace": (
            replace(owner, tenant=fresh.tenant),
            ("SCOPE-001", "SCOPE-002"),
        ),
        "same tenant, another workspace": (
            replace(owner, workspace=fresh.workspace),
            ("SCOPE-001", "SCOPE-002"),
        ),
        "another tenant and workspace": (
            fresh.with_principal(owner.principal),
            ("SCOPE-001",),
        ),
    }


async def visible_record(ctx: CheckContext, token: str) -> str:
    """A record accepted in the check's own scope, whose text has ``token`` and the common word;
    the check stops unless search in its own scope returns it."""
    record = await ctx.accepted(f"{COMMON_WORD} {token}")
    ctx.require(record in await ctx.found(token), "search does not return an accepted record")
    return record


def _without_audit(answer: Observation) -> Any:
    """The answer with its auditId left out (the one field allowed to differ)."""
    if envelopes.envelope(answer) is None:
        return answer.answer()
    return {name: value for name, value in envelopes.envelope(answer).items() if name != "auditId"}


@check(rules=("SCOPE-001", "SCOPE-002"), tools=(SEARCH, GET, CAPTURE, ADMIT), alone=True)
async def records_stay_in_their_scope(ctx: CheckContext) -> None:
    """Once get of the record in its own scope answers it (the control).

    Alone: a server that leaks by recency (another scope's search answering the scope that
    wrote last) shows the check's record only when no other check writes in between."""
    token = ctx.unique("scoped")
    record = await visible_record(ctx, token)
    control = await ctx.get(record)
    ctx.require_accepted(control, "get of the record in its own scope (the control)")
    for where, (identity, rules) in neighbours(ctx).items():
        found = await ctx.found(token, identity=identity)
        got = await ctx.get(record, identity=identity)
        for rule in rules:
            ctx.expect(
                rule,
                record not in found,
                expected=f"search in {where}: not the record {record}",
                observed=found,
            )
            ctx.expect(
                rule,
                not envelopes.ok(got),
                expected=f"get in {where}: no record (the record is out of scope)",
                observed=got,
            )


async def _attempt(ctx: CheckContext, tool: str, target: str, identity: Identity) -> Observation:
    if tool == GET:
        return await ctx.get(target, identity=identity)
    return await send(ctx, tool, target, ctx.key(tool), identity=identity)


@check(rules=("SCOPE-003", "SCOPE-005", "SCOPE-006"), tools=(GET, CAPTURE, ADMIT, WITHDRAW, FORGET))
async def foreign_ids_answer_like_unknown_ids(ctx: CheckContext) -> None:
    """From another tenant (same workspace and principal names), each tool on the owner's
    candidate or record and on an id nobody issued; then the owner's targets are unchanged.
    The controls come last: the owner's get and withdraw (the probes of SCOPE-006), forget and
    admission in its own scope are accepted."""
    candidate, record = await ctx.pending(), await ctx.accepted()
    foreign, _ = neighbours(ctx)["another tenant, same workspace"]
    for tool in (GET, ADMIT, WITHDRAW, FORGET):
        target = record if tool in (GET, FORGET) else candidate
        of_other_scope = await _attempt(ctx, tool, target, foreign)
        unknown = await _attempt(ctx, tool, unknown_target(ctx, tool), foreign)
        for answer, whose in ((of_other_scope, "another scope's"), (unknown, "an unknown")):
            ctx.expect(
                "SCOPE-003",
                envelopes.code(answer) == NOT_FOUND,
                expected=f"{tool} of {whose} id: {NOT_FOUND}",
                observed=answer,
            )
        if tool != GET:
            ctx.expect(
                "SCOPE-005",
                _without_audit(of_other_scope) == _without_audit(unknown),
                expected=f"{tool}: another scope's id answered exactly as an unknown id "
                f"{_without_audit(unknown)}",
                observed=_without_audit(of_other_scope),
            )
    probes = []
    for target, is_record, state in ((candidate, False, "pending"), (record, True, "current")):
        kept, probe = await kept_its_state(ctx, target, record=is_record)
        ctx.expect(
            "SCOPE-006",
            kept,
            expected=f"still {state} in its own scope after the foreign mutations",
            observed=probe,
        )
        probes.append(probe)
    for control in (*probes, await ctx.forget(record)):
        ctx.require_accepted(control, f"{control.tool} in the owner's scope (the control)")
    await require_admission_accepted(ctx)


@check(rules=("SCOPE-004",), tools=(GET, CAPTURE, ADMIT, FORGET))
async def get_not_found_tells_nothing(ctx: CheckContext) -> None:
    """get of an id nobody issued, of another scope's record, and of a forgotten record (not
    eligible any more), all from the check's own scope."""
    foreign, _ = neighbours(ctx)["another tenant, same workspace"]
    forgotten = await ctx.accepted()
    control = await ctx.get(forgotten)
    ctx.require_accepted(control, "get of a current record of the scope (the control)")
    forget = await ctx.forget(forgotten)
    ctx.require(envelopes.ok(forget), "forget of a current record failed", forget)
    unknown = await ctx.get(unknown_target(ctx, GET))
    cases = {
        "another scope's record": await ctx.get(await ctx.accepted(identity=foreign)),
        "a forgotten record": await ctx.get(forgotten),
    }
    ctx.expect(
        "SCOPE-004",
        envelopes.code(unknown) == NOT_FOUND,
        expected=f"get of an unknown id: {NOT_FOUND}",
        observed=unknown,
    )
    for case, answer in cases.items():
        ctx.expect(
            "SCOPE-004",
            envelopes.code(answer) == NOT_FOUND
            and _without_audit(answer) == _without_audit(unknown),
            expected=f"get of {case}: the answer to an unknown id, {_without_audit(unknown)}",
            observed=_without_audit(answer),
        )


@check(rules=("SCOPE-007",), tools=(SEARCH, CAPTURE, ADMIT), alone=True)
async def fresh_scope_is_empty(ctx: CheckContext) -> None:
    """A record exists elsewhere (in the check's own scope) with the word searched for.

    Alone, as records_stay_in_their_scope: a server that fills an empty search with the scope
    that wrote last answers the check's record only when no other check writes in between."""
    token = ctx.unique("elsewhere")
    await visible_record(ctx, token)
    fresh = ctx.new_identity("fresh")
    for query in (COMMON_WORD, token):
        answer = await ctx.search(query, identity=fresh)
        ctx.expect(
            "SCOPE-007",
            envelopes.ok(answer) and envelopes.value(answer).get("records") == [],
            expected=f"search {query!r} in a scope never used: ok with no records",
            observed=answer,
        )


@check(rules=("SCOPE-008",), tools=ALL_TOOLS)
async def scope_members_share_memory(ctx: CheckContext) -> None:
    """One principal captures; another (with its own agent_id and session) admits, reads,
    withdraws and forgets what the first wrote."""
    owner = ctx.identity
    member = replace(
        owner,
        principal=f"{owner.principal}-member",
        agent_id="agent:other",
        session="session:other",
    )
    token = ctx.unique("shared")
    admitted = await ctx.admit(await ctx.pending(f"{COMMON_WORD} {token}"), identity=member)
    status, _, record = effect(ADMIT, admitted)
    ctx.expect(
        "SCOPE-008",
        status == "accepted" and record is not None,
        expected="another principal's admission of the owner's clean candidate: accepted",
        observed=admitted,
    )
    ctx.require(record is not None, "no record to read", admitted)
    found = await ctx.found(token, identity=member)
    ctx.expect(
        "SCOPE-008",
        record in found,
        expected=f"another principal's search: the record {record}",
        observed=found,
    )
    candidate = await ctx.pending()
    answers = {
        "get": await ctx.get(record, identity=member),
        "withdraw": await send(ctx, WITHDRAW, candidate, ctx.key(), identity=member),
        "forget": await send(ctx, FORGET, record, ctx.key(), identity=member),
    }
    for step, answer in answers.items():
        ctx.expect(
            "SCOPE-008",
            envelopes.ok(answer),
            expected=f"another principal's {step} of the owner's memory succeeds",
            observed=answer,
        )


#: Records each neighbouring scope gets with the words of the check's own records (SCOPE-009).
CROWD = 4
#: Rounds of one capture and its admission in the scopes whose counters SCOPE-009 compares.
ROUNDS = 2


def _ranking(answer: Observation) -> dict[str, Any]:
    """What SCOPE-009 compares of a search answer (not its issued_at or digests, which may
    carry the time): each packet's record, score and rank, candidate_count and the cursor."""
    value = envelopes.value(answer)
    return {
        "records": [
            {field: packet.get(field) for field in ("record", "score", "rank")}
            for packet in value.get("records", [])
        ],
        "candidate_count": value.get("rank_receipt", {}).get("candidate_count"),
        "next_page_cursor": value.get("next_page_cursor"),
    }


async def _crowd(ctx: CheckContext, words: tuple[str, str]) -> None:
    """Fill every neighbouring scope with records of ``words``, of other lengths and term
    frequencies than the check's own, so that any statistic shared with them would move."""
    first, second = words
    for identity, _ in neighbours(ctx).values():
        for number in range(CROWD):
            text = f"{COMMON_WORD} {first} {second * (number % 2)} " + "padding " * number
            await ctx.accepted(text, identity=identity)


@check(rules=("SCOPE-009",), tools=(SEARCH, CAPTURE, ADMIT))
async def scopes_are_independent(ctx: CheckContext) -> None:
    """A search with a second page in the check's own scope, again once the neighbouring scopes
    hold records of the same words: the same records, scores, ranks, candidate_count and
    cursor. The control: the first search answers records."""
    words = (ctx.unique("independent"), ctx.unique("independentpair"))
    first, second = words
    for text in (first, f"{first} {first} {second}", f"{second} and other words", second):
        await ctx.accepted(f"{COMMON_WORD} {text}")
    query = f"{first} {second}"
    before = await ctx.search(query, limit=2)
    ctx.require(
        bool(envelopes.ok(before) and envelopes.value(before).get("records")),
        "search answers no record",
        before,
    )
    await _crowd(ctx, words)
    after = await ctx.search(query, limit=2)
    ctx.expect(
        "SCOPE-009",
        envelopes.ok(after) and _ranking(after) == _ranking(before),
        expected="the same answer as before other scopes held records of the same words: "
        f"{_ranking(before)}",
        observed=_ranking(after) if envelopes.ok(after) else after,
    )
    await _expect_own_counters(ctx)


async def _counters(ctx: CheckContext, identity: Identity, between: Any) -> list[Any]:
    """The cursors a fresh scope is answered along ``ROUNDS`` captures and their admissions;
    ``between`` is awaited after each call."""
    seen = []
    for _ in range(ROUNDS):
        captured = await ctx.capture(identity=identity)
        ctx.require(envelopes.ok(captured), "capture failed", captured)
        seen.append(envelopes.value(captured).get("cursor"))
        await between()
        admitted = await ctx.admit(envelopes.value(captured).get("candidate_id"), identity=identity)
        ctx.require(envelopes.ok(admitted), "admission failed", admitted)
        seen.append(envelopes.value(admitted).get("outcome", {}).get("cursor"))
        await between()
    return seen


async def _expect_own_counters(ctx: CheckContext) -> None:
    """Two fresh scopes make the same calls, another scope writing between the second one's
    calls only: both are answered the same cursors."""
    writer = ctx.new_identity("writer")

    async def nothing() -> None:
        return None

    async def foreign_write() -> None:
        await ctx.accepted(identity=writer)

    alone = await _counters(ctx, ctx.new_identity("alone"), nothing)
    beside = await _counters(ctx, ctx.new_identity("beside"), foreign_write)
    ctx.expect(
        "SCOPE-009",
        beside == alone,
        expected="the cursors of a scope that another scope wrote beside, as those of a scope "
        f"alone after the same calls: {alone}",
        observed=beside,
    )
