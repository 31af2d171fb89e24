"""The current project (PROJ): named by mem_current_project, taken by writes without a project;
and an explicit project, which names the project a write goes to.

PROJ-003 is about how the server was started (in an empty folder outside git, no project
configured), which the harness cannot set for every target. So the check reads what
``mem_current_project`` reports and decides only where that shows the precondition held: no
configured source (``process_override``, ``config``, ``explicit_override``: a ``--project`` option,
``ENGRAM_PROJECT`` or a ``.engram/config.json``), a working folder it reports (``cwd``) that the
harness can see, empty and in no git repository. Otherwise the rule is not applicable, with what
failed as its reason (the in-process reference runs with a configured project; a server started
in the harness's own checkout runs inside git). The name is compared with the folder's base name
as it is and lowercased (upstream and the reference normalise names to lowercase).

PROJ-004 reads ``mem_current_project``'s data itself (structured content, else JSON text), not
through the reader, so that an answer without a project source (``project_source``, or
``source`` as the data's own key) fails the rule instead of leaving it undecided.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..answer_data import data_of, key_of
from ..answer_text import Unreadable, answer_of
from ..facts import CurrentProject, Saved, SearchResult, SessionStarted
from .context import REQUIRED_SESSION, MemContext
from .registry import check
from .steps import done, fact, memory_arguments, search

CURRENT, SAVE, SEARCH = "mem_current_project", "mem_save", "mem_search"
#: the other name a project's source goes by in an answer's data (besides its own and camelCase)
SOURCE_ALIASES = {"project_source": ("source",)}
#: project sources that say the project was configured, not detected from the working folder
CONFIGURED = ("process_override", "config", "explicit_override")


async def current(ctx: MemContext) -> CurrentProject:
    """What ``mem_current_project`` answers; a failure stops the check."""
    return await done(ctx, CURRENT, {}, CurrentProject)


@check(rules=("PROJ-001",), tools=(CURRENT,))
async def current_project_is_named(ctx: MemContext) -> None:
    found = await fact(ctx, CURRENT, {})
    ctx.expect(
        "PROJ-001",
        isinstance(found, CurrentProject) and bool(found.project),
        expected="mem_current_project answering a non-empty project name",
        observed=found,
    )


@check(rules=("PROJ-002",), tools=(CURRENT, SAVE, SEARCH))
async def saves_go_to_the_current_project(ctx: MemContext) -> None:
    name = (await current(ctx)).project
    ctx.require(bool(name), "mem_current_project named a project", name)
    token = ctx.unique("current")
    arguments: dict[str, Any] = memory_arguments(token)
    if REQUIRED_SESSION & await ctx.required(SAVE):  # a session of the current project, then
        started = await fact(ctx, "mem_session_start", {})
        if isinstance(started, SessionStarted) and started.id:
            arguments["session_id"] = started.id
    await done(ctx, SAVE, arguments, Saved)
    found = await search(ctx, token, project=name)
    ctx.expect(
        "PROJ-002",
        isinstance(found, SearchResult) and bool(found.hits),
        expected=f"the memory saved without project found in the current project {name!r}",
        observed=found,
    )


@check(rules=("PROJ-003",), tools=(CURRENT,))
async def empty_folder_names_the_project(ctx: MemContext) -> None:
    found = await current(ctx)
    unmet = unmet_precondition(found)
    if unmet is not None:
        ctx.not_applicable("PROJ-003", unmet)
        return
    assert found.cwd is not None  # the precondition holds: the server names its folder
    base = Path(found.cwd).name
    ctx.expect(
        "PROJ-003",
        found.project in (base, base.strip().lower()),
        expected=f"the current project named after the empty working folder: {base!r}",
        observed=found,
    )


def unmet_precondition(found: CurrentProject) -> str | None:
    """Why PROJ-003's precondition is not shown to hold, ``None`` when it is."""
    if found.source in CONFIGURED:
        return f"the current project is configured (project_source {found.source})"
    if not found.cwd:
        return "mem_current_project reports no working folder"
    folder = Path(found.cwd)
    try:
        entries = list(folder.iterdir())
    except OSError:
        return f"the server's working folder {found.cwd} is not one the harness can read"
    if entries:
        return f"the server's working folder {found.cwd} is not empty"
    if any((place / ".git").exists() for place in (folder, *folder.parents)):
        return f"the server's working folder {found.cwd} is inside a git repository"
    return None


@check(rules=("PROJ-004",), tools=(CURRENT,))
async def current_project_says_how(ctx: MemContext) -> None:
    answer = await ctx.call(CURRENT, {})
    ctx.expect(
        "PROJ-004",
        answer.outcome == "result" and not answer.is_error,
        expected="mem_current_project answering isError false",
        observed=answer,
    )
    if answer.outcome != "result" or answer.is_error:
        return
    try:
        mapping = data_of(answer_of(CURRENT, answer)) or {}
    except Unreadable:
        mapping = {}
    key = key_of("project_source", mapping, SOURCE_ALIASES)
    source = mapping[key] if key is not None else None
    ctx.expect(
        "PROJ-004",
        isinstance(mapping.get("project"), str) and bool(source),
        expected="an answer carrying project and a non-empty project_source",
        observed=answer,
    )
