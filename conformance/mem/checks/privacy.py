"""Privacy (PRIV): what ``<private>…</private>`` hides, in every text the server stores.

Each secret is a token of its own between the tags, beside a token outside them by which the
check finds the stored text again; a secret counts as kept when any text a read shows holds it
(in any case: a slug lowercases it), or a search by it finds anything in the check's project
(in every project, for a passive capture: upstream's takes no project).
That a span becomes ``[REDACTED]`` is judged where the memory is read back in full
(``mem_get_observation``): one ``[REDACTED]`` per span.

PRIV-003's four texts are four checks, so that a server without one of those tools, or one that
does not show what it stored, still gets the others judged. A session summary and a passive
capture are read back by ``mem_context`` and ``mem_search``; ``mem_session_end``'s summary by the
``Recent Sessions`` of ``mem_context``; ``mem_suggest_topic_key``'s derivation by the key it
answers.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..facts import (
    Context,
    Observation,
    PassiveCapture,
    SearchResult,
    SessionEnded,
    Suggestion,
    SummarySaved,
    ToolFailure,
    Updated,
)
from .context import MemContext
from .registry import check
from .steps import (
    Project,
    context,
    done,
    fresh_project,
    hits_of,
    live,
    observation,
    save,
    saved_id,
    saved_memory,
    search,
    session_of,
    summary_arguments,
    what_why,
)

REDACTED = "[REDACTED]"
SAVE, UPDATE, GET = "mem_save", "mem_update", "mem_get_observation"
SEARCH, CONTEXT = "mem_search", "mem_context"
SUMMARY, PASSIVE, END = "mem_session_summary", "mem_capture_passive", "mem_session_end"
SUGGEST = "mem_suggest_topic_key"


def private(secret: str) -> str:
    return f"<private>{secret}</private>"


def kept(texts: Iterable[str | None], secrets: Iterable[str]) -> list[str]:
    """The secrets that one of ``texts`` holds."""
    shown = " ".join(text.lower() for text in texts if text)
    return [secret for secret in secrets if secret.lower() in shown]


def context_texts(found: Context | ToolFailure) -> list[str | None]:
    """Every text a context shows, in any form of answer (summaries, sessions, prompts,
    memories)."""
    return [found.shown] if isinstance(found, Context) else []


def search_texts(found: SearchResult | ToolFailure) -> list[str]:
    """Everything a search's answer shows, in any form of answer."""
    return [found.shown] if isinstance(found, SearchResult) else []


async def expect_unfound(ctx: MemContext, rule: str, secrets: list[str], **where: Any) -> None:
    """A search by each secret (with the filters ``where``) finds nothing."""
    for secret in secrets:
        found = await search(ctx, secret, **where)
        ctx.expect(
            rule,
            not hits_of(found),
            expected=f"a search for {secret}, written inside <private>, finds nothing",
            observed=found,
        )


async def searched_everywhere(ctx: MemContext, project: Project) -> dict[str, Any]:
    """The search filters of every project (``all_projects``), else of ``project``."""
    if "all_projects" in await ctx.properties(SEARCH):
        return {"all_projects": True}
    return {"project": project.name}


def expect_hidden(
    ctx: MemContext,
    rule: str,
    where: str,
    texts: Iterable[str | None],
    secrets: list[str],
    seen: Any,
) -> None:
    shown = kept(texts, secrets)
    ctx.expect(rule, not shown, expected=f"{where} shows no private text", observed=seen)


def expect_redacted(
    ctx: MemContext, rule: str, memory: Observation, spans: dict[str, int], secrets: list[str]
) -> None:
    """``memory`` read back in full keeps no secret, and each field has ``spans[field]``
    ``[REDACTED]`` marks (one per span)."""
    expect_hidden(
        ctx, rule, "the memory read back", [memory.title, memory.content], secrets, memory
    )
    for field, count in spans.items():
        text = getattr(memory, field) or ""
        ctx.expect(
            rule,
            text.count(REDACTED) == count,
            expected=f"the {field} with {count} {REDACTED} (one per private span)",
            observed=text,
        )


@check(rules=("PRIV-001",), tools=(SAVE, SEARCH, CONTEXT))
async def saved_private_text_is_redacted(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    token, secrets = ctx.unique("privsaved"), [ctx.unique("privtitle"), ctx.unique("privbody")]
    title = f"Memory {token} {private(secrets[0])}"
    content = f"{what_why(token)}\nKey: {private(secrets[1])}"
    memory = await saved_id(ctx, project, await save(ctx, project, title, content), token)
    read_back = await live(ctx, memory, "title", "content")
    expect_redacted(ctx, "PRIV-001", read_back, {"title": 1, "content": 1}, secrets)
    found = await search(ctx, token, project=project.name)
    ctx.require(isinstance(found, SearchResult) and memory in found.ids, "memory found", found)
    expect_hidden(ctx, "PRIV-001", "mem_search", search_texts(found), secrets, found)
    shown = await context(ctx, project)
    texts = context_texts(shown)
    ctx.require(bool(kept(texts, [token])), "the memory shown by mem_context", shown)
    expect_hidden(ctx, "PRIV-001", "mem_context", texts, secrets, shown)
    await expect_unfound(ctx, "PRIV-001", secrets, project=project.name)


@check(rules=("PRIV-002",), tools=(SAVE, UPDATE, SEARCH))
async def every_span_is_redacted_and_updates_too(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    token = ctx.unique("privspans")
    upper, lower, mixed = (ctx.unique(label) for label in ("privupper", "privlower", "privmixed"))
    second_line = ctx.unique("privline")
    across_lines = private(f"{lower}\n{second_line}")
    spans = f"A <PRIVATE>{upper}</PRIVATE> b {across_lines} c <Private>{mixed}</Private> d"
    saved = await save(ctx, project, f"Memory {token}", f"{what_why(token)}\n{spans}")
    memory = await saved_id(ctx, project, saved, token)
    secrets = [upper, lower, second_line, mixed]
    expect_redacted(ctx, "PRIV-002", await live(ctx, memory, "content"), {"content": 3}, secrets)
    updated = [ctx.unique("privnewtitle"), ctx.unique("privnewbody")]
    changes = {
        "title": f"Updated {token} {private(updated[0])}",
        "content": f"{what_why(token)}\nNow: {private(updated[1])}",
    }
    await done(ctx, UPDATE, {"id": memory} | changes, Updated)
    read_back = await live(ctx, memory, "title", "content")
    expect_redacted(ctx, "PRIV-002", read_back, {"title": 1, "content": 1}, updated)


@check(rules=("PRIV-003",), tools=(SUMMARY, CONTEXT, SEARCH))
async def session_summary_is_redacted(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    token, secret = ctx.unique("privsummary"), ctx.unique("privgoal")
    sections = {"goal": f"{token} {private(secret)}", "accomplished": "- the check ran"}
    await done(ctx, SUMMARY, await summary_arguments(ctx, project, sections), SummarySaved)
    shown = await context(ctx, project)
    texts = context_texts(shown)
    ctx.require(bool(kept(texts, [token])), "the summary shown by mem_context", shown)
    expect_hidden(ctx, "PRIV-003", "mem_context after mem_session_summary", texts, [secret], shown)
    await expect_unfound(ctx, "PRIV-003", [secret], project=project.name)


@check(rules=("PRIV-003",), tools=(PASSIVE, SEARCH))
async def passive_capture_is_redacted(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    token, secret = ctx.unique("privlearned"), ctx.unique("privkey")
    learning = f"{token} is learned with a key {private(secret)} left out"
    arguments = {
        "content": f"## Key Learnings:\n1. {learning}\n",
        "project": project.name,
        "session_id": project.session,
    }
    captured = await done(ctx, PASSIVE, await ctx.offered(PASSIVE, arguments), PassiveCapture)
    ctx.require(captured.saved != 0, "the learning saved", captured)
    # upstream's mem_capture_passive takes no project (v1.20 on): its learning is searched for
    # in every project where the server can
    everywhere = await searched_everywhere(ctx, project)
    found = await search(ctx, token, **everywhere)
    ctx.require(isinstance(found, SearchResult) and bool(found.hits), "learning found", found)
    assert isinstance(found, SearchResult)
    via_get = await ctx.lists(GET)
    read = [await (observation if via_get else live)(ctx, memory) for memory in found.ids]
    texts = [t for m in read if isinstance(m, Observation) for t in (m.title, m.content)]
    where = "the captured learning (mem_search, and each hit read back)"
    expect_hidden(ctx, "PRIV-003", where, [*search_texts(found), *texts], [secret], read)
    await expect_unfound(ctx, "PRIV-003", [secret], **everywhere)


@check(rules=("PRIV-003",), tools=(END, CONTEXT))
async def session_end_summary_is_redacted(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    token, secret = ctx.unique("privended"), ctx.unique("privend")
    summary = f"{token} ended {private(secret)}"
    await done(ctx, END, {"id": session_of(ctx, project), "summary": summary}, SessionEnded)
    shown = await context(ctx, project)
    summaries = [s.summary for s in shown.sessions] if isinstance(shown, Context) else []
    ctx.require(bool(kept(summaries, [token])), "the session's summary shown", shown)
    where = "mem_context's sessions after mem_session_end"
    expect_hidden(ctx, "PRIV-003", where, summaries, [secret], shown)


@check(rules=("PRIV-003",), tools=(SUGGEST,))
async def suggested_key_is_redacted(ctx: MemContext) -> None:
    secrets = [ctx.unique("privpick"), ctx.unique("privword")]
    asked = (
        {"type": "decision", "title": f"{private(secrets[0])} pick"},
        {"type": "decision", "content": f"{private(secrets[1])} the words of the content"},
    )
    for arguments in asked:
        suggested = await done(ctx, SUGGEST, arguments, Suggestion)
        where = f"the key suggested from {arguments}"
        expect_hidden(ctx, "PRIV-003", where, [suggested.topic_key], secrets, suggested)


#: PRIV-004 and PRIV-005: a content holding three secrets in a span of the rule's shape
SHAPES = {
    "PRIV-004": "A <private>{0} <private>{1}</private> {2}</private> B",
    "PRIV-005": "A <private>{0} {1}, and on to the end: {2}",
}


@check(rules=tuple(SHAPES), tools=(SAVE, SEARCH))
async def private_spans_fail_closed(ctx: MemContext) -> None:
    """A span holding another, and a span never closed: no word inside either is shown by the
    memory read back or by a search, nor found by a search."""
    project = await fresh_project(ctx)
    for rule, shape in SHAPES.items():
        token, secrets = ctx.unique("privshape"), [ctx.unique("privinside") for _ in range(3)]
        content = f"{what_why(token)}\n{shape.format(*secrets)}"
        memory = await saved_memory(ctx, project, token, content=content)
        read = await live(ctx, memory, "content")
        expect_hidden(ctx, rule, "the memory read back", [read.title, read.content], secrets, read)
        found = await search(ctx, token, project=project.name)
        expect_hidden(ctx, rule, "mem_search", search_texts(found), secrets, found)
        await expect_unfound(ctx, rule, secrets, project=project.name)
