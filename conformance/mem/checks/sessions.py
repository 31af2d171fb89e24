"""Sessions (SESS): started, summarised and ended, and what carries over from one to the next.

Each check starts its sessions in a fresh project as ``steps.fresh_project`` does
(``steps.start_arguments``: the ``project`` or the ``directory`` the server's schema lists), and
names sessions with ``ctx.unique``. Non-obvious choices:

- SESS-001 starts a session *for the current project*: it sends no project where the schema lets
  it (the answer must name the project ``mem_current_project`` names, when the server has that
  tool); where the schema requires ``project`` (v1.7.0, which has no current project), the project
  the agent names is its current one.
- A summary is recognised in a context by its Goal's unique token, wherever the context shows it:
  the reference's ``### Latest Session Summary``, or upstream's observation line of type
  ``session_summary`` (SESS-004, SESS-008, SESS-012).
- SESS-009's second session's id sorts after the first's: upstream breaks a tie of ``started_at``
  (whole seconds) by id, descending, so the later session is the most recent on every version
  without waiting a second. SESS-012 does wait (1.1 s) between its two summaries, as upstream
  lists a context's observations by a creation time of whole seconds.
- SESS-010 saves one memory first, so that the context it reads to see that nothing was stored
  is a project's ordinary context, not the empty one.
"""

from __future__ import annotations

from typing import Any

from ..facts import (
    Context,
    CurrentProject,
    Fact,
    SearchResult,
    SessionEnded,
    SessionStarted,
    SummarySaved,
    Timeline,
    ToolFailure,
)
from .context import REQUIRED_SESSION, MemContext
from .registry import check
from .steps import (
    Project,
    context,
    done,
    fact,
    found_ids,
    fresh_project,
    hits_of,
    live,
    memory_arguments,
    project_started,
    read_context,
    requirements_unmet,
    save,
    saved_memory,
    search,
    session_of,
    start,
    start_arguments,
    summary_arguments,
    summary_sections,
    what_why,
)

START, SUMMARY, END = "mem_session_start", "mem_session_summary", "mem_session_end"
SAVE, SEARCH, CONTEXT = "mem_save", "mem_search", "mem_context"
TIMELINE, CURRENT = "mem_timeline", "mem_current_project"
SUMMARY_TYPE = "session_summary"
#: SESS-010: contents that hold no summary
BLANK_SUMMARIES = ("", "  \n\t ")
#: SESS-012: how long to wait so that a second summary is created in a later second
NEXT_SECOND_S = 1.1


# steps: sessions and summaries ----------------------------------------------------------------
async def summarise(ctx: MemContext, project: Project, goal: str) -> Fact:
    """``mem_session_summary`` of ``project``'s session, its Goal ``goal``."""
    arguments = await summary_arguments(ctx, project, summary_sections(goal))
    return await fact(ctx, SUMMARY, arguments)


async def summarised(ctx: MemContext, project: Project, goal: str) -> SummarySaved:
    """``summarise``, for a summary the check builds on: a failure stops the check."""
    arguments = await summary_arguments(ctx, project, summary_sections(goal))
    return await done(ctx, SUMMARY, arguments, SummarySaved)


def first_showing(found: Context | ToolFailure, token: str) -> int | None:
    """Where, in the order a context shows things, it first shows ``token`` (``None``:
    nowhere, or no context)."""
    at = found.shown.find(token) if isinstance(found, Context) else -1
    return None if at < 0 else at


def summaries_shown(found: Context) -> bool:
    """Whether a context shows a session summary."""
    return found.latest_summary is not None or bool(found.summaries)


def failed(found: Fact) -> bool:
    return isinstance(found, ToolFailure)


# SESS-001, SESS-002, SESS-006: one session --------------------------------------------------
@check(rules=("SESS-001",), tools=(START,))
async def session_start_names_session_and_project(ctx: MemContext) -> None:
    session = ctx.unique("sess")
    arguments: dict[str, Any] = {"id": session} if "id" in await ctx.properties(START) else {}
    if "project" in await ctx.required(START):
        current: str | None = ctx.unique("proj").lower()
        arguments["project"] = current
    else:
        current = await current_project(ctx)
    started = await fact(ctx, START, arguments)
    named = started.id if isinstance(started, SessionStarted) else None
    project = started.project if isinstance(started, SessionStarted) else None
    ctx.expect(
        "SESS-001",
        bool(named) and named == arguments.get("id", named) and bool(project),
        expected=f"an answer naming session {arguments.get('id', '<a new id>')} and a project",
        observed=started,
    )
    if current is not None:
        ctx.expect(
            "SESS-001",
            project == current,
            expected=f"the session started for the current project {current!r}",
            observed=started,
        )


async def current_project(ctx: MemContext) -> str | None:
    """The project ``mem_current_project`` names (``None`` without that tool, or a name)."""
    if CURRENT not in await ctx.listed():
        return None
    found = await fact(ctx, CURRENT, {})
    return (found.project or None) if isinstance(found, CurrentProject) else None


@check(rules=("SESS-002",), tools=(START, SAVE))
async def session_start_generates_an_id(ctx: MemContext) -> None:
    name = ctx.unique("proj").lower()
    started = await start(ctx, name, None)
    generated = started.id if isinstance(started, SessionStarted) else ""
    ctx.expect(
        "SESS-002",
        bool(generated),
        expected="a session started without id, its answer naming a new non-empty id",
        observed=started,
    )
    if not generated:
        return
    token = ctx.unique("generated")
    arguments = memory_arguments(token) | {"project": name, "session_id": generated}
    saved = await fact(ctx, SAVE, arguments)
    ctx.expect(
        "SESS-002",
        not failed(saved),
        expected=f"a save with the generated session_id {generated!r} accepted",
        observed=saved,
    )
    if failed(saved):
        return
    ids = await found_ids(ctx, token, project=name)
    ctx.require(len(ids) == 1, f"one memory found by {token}", ids)
    memory = await live(ctx, ids[0], "session_id")
    ctx.expect(
        "SESS-002",
        memory.session_id == generated,
        expected=f"the memory saved with session_id {generated!r} in that session",
        observed=memory,
    )


@check(rules=("SESS-006",), tools=(START, END))
async def session_end_names_the_session(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    session = session_of(ctx, project)
    ended = await fact(ctx, END, {"id": session})
    ctx.expect(
        "SESS-006",
        isinstance(ended, SessionEnded) and ended.id in (None, session),
        expected=f"mem_session_end succeeding (an answer naming a session names {session!r})",
        observed=ended,
    )


# SESS-003, SESS-009, SESS-011: which session a memory belongs to ----------------------------
@check(rules=("SESS-003",), tools=(START, SAVE))
async def memories_belong_to_their_session(ctx: MemContext) -> None:
    """The timeline's part only where the server lists ``mem_timeline``."""
    if await requirements_unmet(ctx, "SESS-003"):
        return
    project = await fresh_project(ctx)
    session = session_of(ctx, project)
    tokens = [ctx.unique("insession") for _ in range(3)]
    ids = [await saved_memory(ctx, project, t, session_id=session) for t in tokens]
    for memory_id in ids:
        memory = await live(ctx, memory_id, "session_id")
        ctx.expect(
            "SESS-003",
            memory.session_id == session,
            expected=f"memory #{memory_id}, saved with session_id {session!r}, in it",
            observed=memory,
        )
    if not await ctx.lists(TIMELINE):
        return
    first, middle, last = ids
    arguments = {"observation_id": middle, "project": project.name}
    timeline = await fact(ctx, TIMELINE, await ctx.offered(TIMELINE, arguments))
    around = (
        {entry.id for entry in (*timeline.before, *timeline.after)}
        if isinstance(timeline, Timeline)
        else set()
    )
    ctx.expect(
        "SESS-003",
        {first, last} <= around,
        expected=f"the timeline of #{middle} listing #{first} and #{last} of its session",
        observed=timeline,
    )


@check(rules=("SESS-009",), tools=(START, SAVE, END))
async def saves_join_the_active_session(ctx: MemContext) -> None:
    if REQUIRED_SESSION & await ctx.required(SAVE):
        ctx.not_applicable("SESS-009", "mem_save's input schema requires a session_id")
        return
    project = await fresh_project(ctx)
    # sorts after the first session's id (see the module's text), where the caller names it
    started = await start(ctx, project.name, f"{session_of(ctx, project)}b")
    ctx.require(isinstance(started, SessionStarted), "a second session started", started)
    assert isinstance(started, SessionStarted)
    later = started.id
    ctx.require(bool(later), "the second session named", started)
    joined = await live(ctx, await saved_memory(ctx, project, ctx.unique("active")), "session_id")
    ctx.expect(
        "SESS-009",
        joined.session_id == later,
        expected=f"a save without session_id in the most recent active session {later!r}",
        observed=joined,
    )
    await done(ctx, END, {"id": later}, SessionEnded)
    # a memory of no session shows none (null): no session_id needed to tell it is not in it
    after = await live(ctx, await saved_memory(ctx, project, ctx.unique("ended")))
    ctx.expect(
        "SESS-009",
        after.session_id != later,
        expected=f"a save after session {later!r} ended no longer in it",
        observed=after,
    )


@check(rules=("SESS-011",), tools=(START, SAVE, SEARCH))
async def unknown_session_is_refused(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    ghost, token = ctx.unique("ghost"), ctx.unique("ghostsave")
    arguments = memory_arguments(token) | {"project": project.name, "session_id": ghost}
    saved = await fact(ctx, SAVE, arguments)
    ctx.expect(
        "SESS-011",
        failed(saved),
        expected=f"isError for a save with session_id {ghost!r}, which no session has",
        observed=saved,
    )
    found = await search(ctx, token, project=project.name)
    ctx.expect(
        "SESS-011",
        isinstance(found, SearchResult) and not found.hits,
        expected=f"nothing stored: no memory found by {token}",
        observed=found,
    )


# SESS-004, SESS-005, SESS-010, SESS-012: summaries ------------------------------------------
@check(rules=("SESS-004", "SESS-005"), tools=(START, SUMMARY, CONTEXT, SEARCH))
async def summary_comes_back_in_context(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    goal = ctx.unique("goal")
    summary = await summarise(ctx, project, goal)
    ctx.expect(
        "SESS-004",
        isinstance(summary, SummarySaved),
        expected="mem_session_summary of Goal, Discoveries, Accomplished and Files succeeding",
        observed=summary,
    )
    shown = await context(ctx, project)
    ctx.expect(
        "SESS-004",
        first_showing(shown, goal) is not None,
        expected=f"the next mem_context showing the summary's Goal ({goal})",
        observed=shown,
    )
    found = await search(ctx, goal, project=project.name, type=SUMMARY_TYPE)
    ctx.expect(
        "SESS-005",
        any(hit.type == SUMMARY_TYPE for hit in hits_of(found)),
        expected=f"mem_search with type {SUMMARY_TYPE} finding the summary ({goal})",
        observed=found,
    )


@check(rules=("SESS-010",), tools=(START, SAVE, SUMMARY, CONTEXT))
async def blank_summary_is_refused(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    await saved_memory(ctx, project, ctx.unique("beforeblank"))
    for content in BLANK_SUMMARIES:
        answer = await fact(ctx, SUMMARY, await summary_arguments(ctx, project, content))
        ctx.expect(
            "SESS-010",
            failed(answer),
            expected=f"isError for a summary of content {content!r}",
            observed=answer,
        )
    shown = await read_context(ctx, project)
    ctx.expect(
        "SESS-010",
        not summaries_shown(shown),
        expected="no session summary stored for the project",
        observed=shown,
    )


@check(rules=("SESS-012",), tools=(START, SUMMARY, CONTEXT), waits=True)
async def newest_summary_comes_first(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    older, newer = ctx.unique("oldergoal"), ctx.unique("newergoal")
    await summarised(ctx, project, older)
    await ctx.wait(NEXT_SECOND_S)
    await summarised(ctx, project, newer)
    shown = await context(ctx, project)
    at_newer, at_older = first_showing(shown, newer), first_showing(shown, older)
    ctx.expect(
        "SESS-012",
        at_newer is not None and (at_older is None or at_newer < at_older),
        expected=f"the newer summary ({newer}) shown before the older ({older})",
        observed=shown,
    )


# SESS-007, SESS-008: the whole cycle --------------------------------------------------------
@check(rules=("SESS-007",), tools=(START, CURRENT, CONTEXT, SAVE, SUMMARY, END))
async def session_cycle_runs(ctx: MemContext) -> None:
    name, token = ctx.unique("proj").lower(), ctx.unique("cycle")
    arguments = await start_arguments(ctx, name, ctx.unique("sess"))
    started = await ctx.call(START, arguments)
    ctx.expect(
        "SESS-007",
        started.outcome == "result" and not started.is_error,
        expected=f"{START} answering isError false in the session cycle",
        observed=started,
    )
    project = await project_started(ctx, name, arguments, started)
    memory = memory_arguments(token) | {"project": project.name, "session_id": project.session}
    cycle: list[tuple[str, dict[str, Any]]] = [
        (CURRENT, {}),
        (CONTEXT, {"project": project.name}),
        (SAVE, memory),
        (SUMMARY, await summary_arguments(ctx, project, summary_sections(token))),
        (END, {"id": session_of(ctx, project)}),
    ]
    for tool, arguments in cycle:
        answer = await ctx.call(tool, arguments)
        ctx.expect(
            "SESS-007",
            answer.outcome == "result" and not answer.is_error,
            expected=f"{tool} answering isError false in the session cycle",
            observed=answer,
        )


@check(rules=("SESS-008",), tools=(START, SAVE, SUMMARY, END, SEARCH, CONTEXT))
async def knowledge_carries_over(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    memory, goal = ctx.unique("carried"), ctx.unique("carriedgoal")
    await save(ctx, project, f"Memory {memory}", what_why(memory), session_id=project.session)
    await summarised(ctx, project, goal)
    await done(ctx, END, {"id": session_of(ctx, project)}, SessionEnded)
    started = await start(ctx, project.name, ctx.unique("nextsess"))
    ctx.require(isinstance(started, SessionStarted), "a new session started", started)
    for token, what in ((memory, "memory"), (goal, "summary")):
        found = await search(ctx, token, project=project.name)
        ctx.expect(
            "SESS-008",
            isinstance(found, SearchResult) and bool(found.hits),
            expected=f"the ended session's {what} found by mem_search {token}",
            observed=found,
        )
    shown = await context(ctx, project)
    for token, what in ((memory, "memory"), (goal, "summary")):
        ctx.expect(
            "SESS-008",
            first_showing(shown, token) is not None,
            expected=f"the ended session's {what} shown by mem_context ({token})",
            observed=shown,
        )
