"""Scopes (SCOPE): a memory's scope as stored, and what each scope lets a read see.

Saves name their scope wherever the rule is not about the default, so that a server whose
default scope is wrong fails SCOPE-001 only. A read that must show a memory and fails shows
nothing, which the rule judges; a read that must not show one has to succeed first (a failure
hides everything and proves nothing). Upstream v1.20.0 reads a project it does not know as an
error, so the other project of a check is made known with a save of its own.
"""

from __future__ import annotations

from ..facts import Context, SearchResult, ToolFailure
from .context import MemContext
from .registry import check
from .steps import (
    Project,
    context,
    fact,
    found_ids,
    fresh_project,
    live,
    memory_arguments,
    read_context,
    saved_memory,
    search,
    shows,
    titles,
)

SAVE, SEARCH, CONTEXT = "mem_save", "mem_search", "mem_context"
PROJECT, PERSONAL = "project", "personal"
#: SCOPE-002: the title of seed 003's personal memory
SEED_PERSONAL_TITLE = "Prefiero async/await sobre Promises encadenadas"


async def _known_project(ctx: MemContext, label: str) -> Project:
    """A fresh project that holds a memory of its own."""
    project = await fresh_project(ctx, label)
    await saved_memory(ctx, project, ctx.unique("known"), scope=PROJECT)
    return project


def _shown(found: Context | SearchResult | ToolFailure) -> object:
    """What a read showed, as evidence."""
    return found if isinstance(found, ToolFailure) else titles(found)


@check(rules=("SCOPE-001",), tools=(SAVE, SEARCH))
async def default_scope_is_project(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    memory = await live(ctx, await saved_memory(ctx, project, ctx.unique("unscoped")), "scope")
    ctx.expect("SCOPE-001", memory.scope == PROJECT, expected="scope project", observed=memory)


@check(rules=("SCOPE-002",), tools=(SAVE, SEARCH))
async def personal_scope_is_kept(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    token = ctx.unique("personal")
    title = f"{SEED_PERSONAL_TITLE} ({token})"
    memory_id = await saved_memory(ctx, project, token, "learning", title=title, scope=PERSONAL)
    memory = await live(ctx, memory_id, "scope")
    ctx.expect("SCOPE-002", memory.scope == PERSONAL, expected="scope personal", observed=memory)


@check(rules=("SCOPE-003",), tools=(SAVE, SEARCH, CONTEXT))
async def memories_stay_in_their_project(ctx: MemContext) -> None:
    home, away = await fresh_project(ctx, "home"), await _known_project(ctx, "away")
    token = ctx.unique("isolated")
    await saved_memory(ctx, home, token, scope=PROJECT)
    ctx.require(bool(await found_ids(ctx, token, project=home.name)), f"found in {home.name}")
    ids = await found_ids(ctx, token, project=away.name)
    ctx.expect(
        "SCOPE-003",
        not ids,
        expected=f"mem_search of {away.name} finds no memory of {home.name}",
        observed=ids,
    )
    shown = await read_context(ctx, away)
    ctx.expect(
        "SCOPE-003",
        not shows(shown, token),
        expected=f"mem_context of {away.name} shows no memory of {home.name}",
        observed=titles(shown),
    )


@check(rules=("SCOPE-004",), tools=(SAVE, CONTEXT))
async def personal_memories_follow_the_user(ctx: MemContext) -> None:
    home, away = await fresh_project(ctx, "home"), await _known_project(ctx, "away")
    token = ctx.unique("everywhere")
    await saved_memory(ctx, home, token, scope=PERSONAL)
    shown = await context(ctx, away)
    ctx.expect(
        "SCOPE-004",
        shows(shown, token),
        expected=f"mem_context of {away.name} shows the personal memory saved in {home.name}",
        observed=_shown(shown),
    )


@check(rules=("SCOPE-005",), tools=(SAVE, SEARCH, CONTEXT))
async def personal_scope_reads_every_project(ctx: MemContext) -> None:
    """The memory is saved in a fresh project, never the server's current one."""
    home = await fresh_project(ctx, "home")
    token = ctx.unique("anyproject")
    await saved_memory(ctx, home, token, scope=PERSONAL)
    found = await search(ctx, token, scope=PERSONAL)
    ctx.expect(
        "SCOPE-005",
        shows(found, token),
        expected=f"mem_search with scope personal finds the personal memory of {home.name}",
        observed=_shown(found),
    )
    shown = await context(ctx, None, scope=PERSONAL)
    ctx.expect(
        "SCOPE-005",
        shows(shown, token),
        expected=f"mem_context with scope personal shows the personal memory of {home.name}",
        observed=_shown(shown),
    )


async def _expect_filtered(
    ctx: MemContext, project: Project, query: str, scope: str, tokens: dict[str, str]
) -> None:
    """A search and a context of ``scope`` show its memory and not the other scope's
    (``tokens``: scope -> the token of its memory)."""
    (other,) = set(tokens) - {scope}
    for tool, found in (
        (SEARCH, await search(ctx, query, project=project.name, scope=scope)),
        (CONTEXT, await context(ctx, project, scope=scope)),
    ):
        ctx.require(shows(found, tokens[scope]), f"{tool} scope {scope} shows its memory", found)
        ctx.expect(
            "SCOPE-006",
            not shows(found, tokens[other]),
            expected=f"{tool} with scope {scope} shows no {other} memory",
            observed=titles(found),
        )


@check(rules=("SCOPE-006",), tools=(SAVE, SEARCH, CONTEXT))
async def scope_filter_separates_scopes(ctx: MemContext) -> None:
    """One memory of each scope in one project, both found by a shared word."""
    project = await fresh_project(ctx)
    shared = ctx.unique("split")
    tokens = {scope: ctx.unique(scope) for scope in (PROJECT, PERSONAL)}
    for scope, token in tokens.items():
        await saved_memory(ctx, project, token, title=f"Memory {token} {shared}", scope=scope)
    for scope in tokens:
        await _expect_filtered(ctx, project, shared, scope, tokens)


@check(rules=("SCOPE-007",), tools=(SAVE, SEARCH))
async def other_scopes_are_refused(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    token = ctx.unique("team")
    arguments = memory_arguments(token) | {"project": project.name, "scope": "team"}
    answer = await fact(ctx, SAVE, arguments)
    ctx.expect(
        "SCOPE-007",
        isinstance(answer, ToolFailure),
        expected="mem_save with scope team answers isError",
        observed=answer,
    )
    ids = await found_ids(ctx, token, project=project.name)
    ctx.expect("SCOPE-007", not ids, expected="nothing stored", observed=ids)
