"""The steps mem checks are made of: a fresh project to work in, a call read into its fact, a
save whose id is read back, a search, a read of one memory, a context.

Every step reads the answer through ``answers.read``; an answer the reader cannot understand
stops the check (``require``: its rules become ``error`` with the answer's text as evidence),
so no verdict rests on a half-read answer. A step a check builds on (a save, a project) stops the
check when it fails; the steps that read (``search``, ``observation``, ``context``) hand back a
``ToolFailure`` for the check to judge.

Projects are made as every version accepts them: ``mem_session_start`` names the new project
(``project`` on the v1.7.0 line, the base name of a fresh ``directory`` on later ones, which
accept an explicit ``project`` on writes only once it is known), and writes then name it.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ...observation import Observation as Answer
from ..answer_data import record_of
from ..answer_text import Unreadable, answer_of, everything_shown
from ..answers import read
from ..arguments import fits, published_name
from ..facts import (
    Context,
    Deleted,
    Fact,
    Hit,
    MemoryId,
    Observation,
    PassiveCapture,
    Saved,
    SearchResult,
    SessionEnded,
    SessionStarted,
    SummarySaved,
    Timeline,
    ToolFailure,
    Updated,
)
from .context import MemContext

F = TypeVar("F", bound=Fact)
#: where the fresh projects' folders are made (a server names a project by its folder)
PROJECTS_FOLDER = Path(tempfile.gettempdir(), "engram-conformance-projects")
START, SAVE, DELETE = "mem_session_start", "mem_save", "mem_delete"
SEARCH, GET, SUMMARY = "mem_search", "mem_get_observation", "mem_session_summary"
UPDATE, CONTEXT, END, PASSIVE = (
    "mem_update",
    "mem_context",
    "mem_session_end",
    "mem_capture_passive",
)
#: the tools whose answers the checks need only as a success (and for a token they show), and
#: the fact such an answer is when no layer reads it: the ids and counts they may give are
#: read back (``saved_id``, ``live``)
ACKNOWLEDGED: dict[str, type[Fact]] = {
    SAVE: Saved,
    UPDATE: Updated,
    DELETE: Deleted,
    CONTEXT: Context,
    END: SessionEnded,
    SUMMARY: SummarySaved,
    PASSIVE: PassiveCapture,
}
#: seed 003's four sections of a session summary, as a vendor's schema may name them
SECTIONS = ("goal", "discoveries", "accomplished", "files")
#: an answer slower than this share of the call time-out reads slow (DESIGN: "Bounded cost")
SLOW_SHARE = 0.5
#: how far beyond a store's newest memory an id no memory has lies
BEYOND_NEWEST = 1_000_000


@dataclass(frozen=True)
class Project:
    """A project no other check uses, and the session the server started for it (``None``:
    its answer named none the kit could read)."""

    name: str
    session: str | None


#: how a vendor makes an answer form of its own readable
DECLARE = (
    "a server's own answer form is declared in its target descriptor, one place per fact field: "
    '[answers.{tool}] <field> = "<JSON Pointer>" or "re:<pattern with one group>"'
)


async def read_answer(
    ctx: MemContext, tool: str, arguments: dict[str, Any], *, as_given: bool = False
) -> tuple[Answer, Fact]:
    """``tool``'s answer to ``arguments`` (``MemContext.call``), and its fact (a
    ``ToolFailure`` for ``isError``), for a check that judges the answer's text too. An answer
    no layer can read leaves the check's rules undecided (not applicable), never failed."""
    answer = await ctx.call(tool, arguments, as_given=as_given)
    ctx.require(answer.outcome == "result", f"{tool} answered no tool result", answer)
    try:
        found = read_or_acknowledge(ctx, tool, answer)
    except Unreadable as unreadable:
        ctx.undecided(f"{unreadable}; {DECLARE.format(tool=tool)}", unreadable.text)
        raise  # not reached: undecided raised
    remember(ctx, arguments, found)
    return answer, found


def read_or_acknowledge(ctx: MemContext, tool: str, answer: Answer) -> Fact:
    """``answer``'s fact; a success of a tool whose answer the checks need only as a success
    (``ACKNOWLEDGED``) that no layer reads is that tool's fact knowing nothing but what it
    shows. ``Unreadable`` for any other answer no layer reads."""
    try:
        return read(tool, answer, ctx.declared(tool))
    except Unreadable:
        kind = ACKNOWLEDGED.get(tool)
        if kind is None or answer.is_error:
            raise
        return kind(shown=everything_shown(answer_of(tool, answer)))


def remember(ctx: MemContext, arguments: dict[str, Any], found: Fact) -> None:
    """Note how to find again the memories a save or a search answered (``live``)."""
    project = arguments.get("project")
    if isinstance(found, Saved) and found.id is not None:
        ctx.remember(found.id, project, arguments.get("title"), arguments.get("content"))
    elif isinstance(found, Updated) and "id" in arguments:  # found now by its new text
        texts = (arguments.get("title"), arguments.get("content"))
        ctx.remember(arguments["id"], None, *texts, moved=True)
    elif isinstance(found, SearchResult):
        query = arguments.get("query")
        for hit in found.hits:
            ctx.remember(hit.id, project, query, hit.title, otherwise=query)


def readable(ctx: MemContext, tool: str, answer: Answer) -> Fact | None:
    """``answer``'s fact (``read_or_acknowledge``), or ``None`` for an answer that is no tool
    result or that no layer reads: for a step that can do without it."""
    if answer.outcome != "result":
        return None
    try:
        return read_or_acknowledge(ctx, tool, answer)
    except Unreadable:
        return None


async def fact(
    ctx: MemContext, tool: str, arguments: dict[str, Any], *, as_given: bool = False
) -> Fact:
    """``tool``'s answer to ``arguments`` as its fact (a ``ToolFailure`` for ``isError``)."""
    _, found = await read_answer(ctx, tool, arguments, as_given=as_given)
    return found


async def done(ctx: MemContext, tool: str, arguments: dict[str, Any], kind: type[F]) -> F:
    """``fact``, for a call the check builds on: anything but a ``kind`` stops the check."""
    found = await fact(ctx, tool, arguments)
    ctx.require(isinstance(found, kind), f"{tool} did not succeed", found)
    assert isinstance(found, kind)
    return found


async def requirements_unmet(ctx: MemContext, rule: str) -> bool:
    """Whether a published input schema lacks an argument ``rule`` requires (the rule's
    ``requires``, which the runner does not read itself); then the rule is not applicable, its
    reason naming what is missing."""
    missing = []
    for tool, names in ctx.spec.rules[rule].requires.items():
        lacking = [name for name in names if not await ctx.publishes(tool, name)]
        if lacking:
            missing.append(f"{tool}'s input schema lists no {', '.join(lacking)}")
    if missing:
        ctx.not_applicable(rule, "; ".join(missing))
    return bool(missing)


async def start_arguments(ctx: MemContext, name: str, session: str | None) -> dict[str, Any]:
    """The arguments of a ``mem_session_start`` of project ``name``: the ``project`` where the
    schema publishes one, else a fresh folder named ``name`` as the ``directory`` (never both:
    they are alternatives), and ``session`` as its id where the schema takes an id (``None``: no
    id)."""
    arguments: dict[str, Any] = {}
    if session is not None and await ctx.publishes(START, "id"):
        arguments["id"] = session
    if await ctx.publishes(START, "project"):
        arguments["project"] = name
    elif await ctx.publishes(START, "directory"):
        folder = PROJECTS_FOLDER / name
        folder.mkdir(parents=True, exist_ok=True)
        arguments["directory"] = str(folder)
    return arguments


async def start(ctx: MemContext, name: str, session: str | None) -> Fact:
    """``mem_session_start`` of project ``name`` (``start_arguments``)."""
    return await fact(ctx, START, await start_arguments(ctx, name, session))


async def names_projects(ctx: MemContext) -> bool:
    """Whether the server can be told which project a call is about: ``mem_save`` publishes a
    project, or ``mem_session_start`` a project or a folder."""
    return await ctx.publishes(SAVE, "project") or any(
        [await ctx.publishes(START, "project"), await ctx.publishes(START, "directory")]
    )


async def fresh_project(
    ctx: MemContext, label: str = "proj", session: str | None = None
) -> Project:
    """A new project, made by starting a session for it (the kit's id ``session``, else a
    fresh one); the session is the one the server answers (the kit's own id only where the
    schema takes one; ``None`` where the answer names none the kit can read). A server that
    cannot be told a project works in its own: a check needing a second one is then not
    applicable."""
    ctx.projects_made += 1
    if ctx.projects_made > 1 and not await names_projects(ctx):
        ctx.undecided(
            "the check needs two projects, and the server publishes no project argument "
            f"({SAVE} and {START} name none)"
        )
    name = ctx.unique(label).lower()
    arguments = await start_arguments(ctx, name, session or ctx.unique("sess"))
    return await project_started(ctx, name, arguments, await ctx.call(START, arguments))


async def project_started(
    ctx: MemContext, name: str, arguments: dict[str, Any], answer: Answer
) -> Project:
    """The project ``name`` and the session that ``answer``, to a ``mem_session_start`` of
    ``arguments``, started (``None``: an answer that names none the kit can read; a check that
    needs it asks ``session_of``)."""
    ctx.require(answer.outcome == "result", f"{START} answered no tool result", answer)
    started = readable(ctx, START, answer)
    if not isinstance(started, SessionStarted):
        return Project(name, None)
    # the project the saves go to: the one the start named, unless only the saves name one
    told = bool({"project", "directory"} & set(arguments))
    own = started.project and (told or not await ctx.publishes(SAVE, "project"))
    project = Project(started.project if own else name, started.id or None)
    if project.session is not None:
        ctx.sessions[project.name] = project.session
    return project


def session_of(ctx: MemContext, project: Project) -> str:
    """``project``'s session, for a check that names it: one whose start answer named none
    leaves the check undecided."""
    if project.session is None:
        ctx.undecided(f"the check names the session {START} started, and its answer named none")
    assert project.session is not None
    return project.session


def summary_sections(goal: str) -> dict[str, str]:
    """A summary in seed 003's four sections, its Goal ``goal``."""
    return {
        "goal": goal,
        "discoveries": "nothing unexpected",
        "accomplished": "the conformance check ran",
        "files": "conformance/mem/checks/sessions.py",
    }


def summary_text(sections: Mapping[str, str]) -> str:
    """``sections`` as one text, each under its heading (``## Goal``)."""
    return "\n".join(f"## {name.title()}\n{text}" for name, text in sections.items())


async def summary_arguments(
    ctx: MemContext, project: Project, sections: Mapping[str, str] | str
) -> dict[str, Any]:
    """A ``mem_session_summary`` of ``project``'s session as the server's schema takes it: the
    summary as one text where it publishes ``content`` (upstream), else each of seed 003's
    sections it publishes under that section's name (a text, or a list of it where the schema
    takes no text). ``sections`` as one text is a summary of that text alone (every section
    of it: a blank summary)."""
    published = (await ctx.input_schema(SUMMARY)).get("properties")
    published = published if isinstance(published, dict) else {}
    where = await ctx.offered(SUMMARY, {"project": project.name, "session_id": project.session})
    text = sections if isinstance(sections, str) else summary_text(sections)
    if "content" in published or not set(SECTIONS) & set(published):
        return where | {"content": text}
    parts = dict.fromkeys(SECTIONS, sections) if isinstance(sections, str) else sections
    return where | {
        name: value if fits(published[name], value) else [value]
        for name, value in parts.items()
        if name in published
    }


async def expect_in_time(
    ctx: MemContext, rule: str, tool: str, arguments: dict[str, Any], what: str
) -> None:
    """``tool`` called with ``arguments`` (shaped to trip what is not linear in their size) is
    answered, success or refusal alike, within ``SLOW_SHARE`` of the call time-out (DESIGN's
    ruling "Bounded cost"); no answer within the call time-out is the same broken verdict
    (``timed``)."""
    within_ms = SLOW_SHARE * ctx.session.call_timeout_s * 1000
    await ctx.timed(rule, what, lambda: ctx.call(tool, arguments), within_ms)


def what_why(token: str, what: str = "a memory to find again") -> str:
    """A content in seed 003's What/Why/Where/Learned form, holding ``token``."""
    return (
        f"**What**: {what} ({token})\n**Why**: the check needs one\n"
        f"**Where**: conformance/{token}\n**Learned**: it can be found by {token}"
    )


def memory_arguments(token: str, what: str = "a memory to find again") -> dict[str, str]:
    """``mem_save``'s arguments of a memory holding ``token`` (``what_why`` of ``what``), its
    project and session left to the caller."""
    return {"title": f"Memory {token}", "content": what_why(token, what), "type": "discovery"}


def save_arguments(
    project: Project, title: str, content: str, type: str = "discovery", **extra: Any
) -> dict[str, Any]:
    """The arguments of a ``mem_save`` of a memory in ``project`` (``extra``: scope, …)."""
    return {"title": title, "content": content, "type": type, "project": project.name} | extra


async def save(
    ctx: MemContext,
    project: Project,
    title: str,
    content: str,
    type: str = "discovery",
    **extra: Any,
) -> Saved:
    """A successful ``mem_save`` of a memory in ``project`` (``extra``: scope, topic_key, …)."""
    return await done(ctx, SAVE, save_arguments(project, title, content, type, **extra), Saved)


async def accepted(
    ctx: MemContext, rule: str, project: Project, title: str, content: str, **extra: str
) -> Saved | ToolFailure:
    """A ``mem_save`` in ``project`` that ``rule`` asks to succeed (``extra``: its type, ...);
    a refusal is the rule's failure, not the check's error."""
    arguments = {"title": title, "content": content, "project": project.name} | extra
    saved = await fact(ctx, SAVE, arguments)
    ctx.require(isinstance(saved, Saved | ToolFailure), "mem_save read", saved)
    assert isinstance(saved, Saved | ToolFailure)
    ctx.expect(rule, isinstance(saved, Saved), expected=f"{title!r} saved", observed=saved)
    return saved


async def search(ctx: MemContext, query: str, **filters: Any) -> SearchResult | ToolFailure:
    """``mem_search`` of ``query`` with ``filters`` (project, type, scope, limit, …)."""
    found = await fact(ctx, "mem_search", {"query": query} | filters)
    ctx.require(isinstance(found, SearchResult | ToolFailure), "mem_search read", found)
    assert isinstance(found, SearchResult | ToolFailure)
    return found


async def found_ids(ctx: MemContext, query: str, **filters: Any) -> list[MemoryId]:
    """The ids ``mem_search`` finds; a failed search stops the check."""
    found = await search(ctx, query, **filters)
    ctx.require(isinstance(found, SearchResult), "mem_search succeeded", found)
    assert isinstance(found, SearchResult)
    return found.ids


def hits_of(found: SearchResult | ToolFailure) -> tuple[Hit, ...]:
    """The hits a search found (none when it failed)."""
    return found.hits if isinstance(found, SearchResult) else ()


def ids_of(found: SearchResult | ToolFailure) -> list[MemoryId]:
    """The ids a search found (none when it failed)."""
    return found.ids if isinstance(found, SearchResult) else []


def hit_titled(found: SearchResult | ToolFailure, title: str) -> Hit | None:
    """The search hit with ``title``, if ``found`` has one."""
    return next((hit for hit in hits_of(found) if hit.title == title), None)


def hit_of(found: SearchResult | ToolFailure, memory_id: MemoryId) -> Hit | None:
    """The search hit of memory ``memory_id``, if ``found`` has one."""
    return next((hit for hit in hits_of(found) if hit.id == memory_id), None)


async def saved_id(ctx: MemContext, project: Project, saved: Saved, token: str) -> MemoryId:
    """The id of the memory ``saved`` made: its answer's, else the one hit of ``token`` in its
    project (v1.7.0's ``mem_save`` answers no id)."""
    if saved.id is not None:
        return saved.id
    ids = await found_ids(ctx, token, project=project.name)
    ctx.require(len(ids) == 1, f"one memory found by {token}", ids)
    return ids[0]


async def saved_memory(
    ctx: MemContext, project: Project, token: str, type: str = "discovery", **extra: Any
) -> MemoryId:
    """The id of a new memory of ``project`` whose title and content hold ``token`` (those of
    ``memory_arguments`` unless ``extra`` gives them)."""
    standard = memory_arguments(token)
    title = extra.pop("title", standard["title"])
    content = extra.pop("content", standard["content"])
    arguments = save_arguments(project, title, content, type, **extra)
    answer = await ctx.call(SAVE, arguments)
    ok = answer.outcome == "result" and not answer.is_error
    ctx.require(ok, f"{SAVE} did not succeed", answer)
    saved = readable(ctx, SAVE, answer)
    ctx.require(isinstance(saved, Saved), f"{SAVE} did not succeed", saved)
    assert isinstance(saved, Saved)
    remember(ctx, arguments, saved)
    return await saved_id(ctx, project, saved, token)


async def observation(ctx: MemContext, memory_id: MemoryId) -> Observation | ToolFailure:
    """``mem_get_observation`` of ``memory_id``."""
    found = await fact(ctx, GET, {"id": memory_id})
    ctx.require(isinstance(found, Observation | ToolFailure), f"{GET} read", found)
    assert isinstance(found, Observation | ToolFailure)
    return found


async def live(ctx: MemContext, memory_id: MemoryId, *needs: str) -> Observation:
    """The memory ``memory_id`` as the server shows it now, for a memory the check builds on:
    ``mem_get_observation`` where the server lists it (a failure stops the check), else its
    record in the data of a ``mem_search`` that finds it (``searched_record``). A field of
    ``needs`` that the server does not show leaves the check undecided."""
    if await ctx.lists(GET):
        found = await observation(ctx, memory_id)
        ctx.require(isinstance(found, Observation), f"memory #{memory_id} read back", found)
        assert isinstance(found, Observation)
        how = GET
    else:
        found, how = await searched_record(ctx, memory_id), f"its {SEARCH} record"
    missing = [name for name in needs if getattr(found, name) is None]
    if missing:
        ctx.undecided(f"the server shows no {', '.join(missing)} of a memory ({how})", found)
    return found


async def searched_record(ctx: MemContext, memory_id: MemoryId) -> Observation:
    """Memory ``memory_id`` as a server without ``mem_get_observation`` shows it: the record
    of it in the data (structured content or JSON) of a ``mem_search`` for a token it holds.
    A memory no search of the check's finds, or a search answer that gives no record as data,
    leaves the check undecided."""
    finder = ctx.finders.get(memory_id)
    if finder is None:
        ctx.undecided(f"memory {memory_id!r} cannot be read back: the server lists no {GET}")
    assert finder is not None
    arguments = {"query": finder.query, "project": finder.project}
    answer = await ctx.call(SEARCH, arguments)
    if answer.outcome != "result" or answer.is_error:  # the search rules judge that
        ctx.undecided(f"memory {memory_id!r} cannot be read back: {SEARCH} failed", answer)
    try:
        return record_of(Observation, SEARCH, answer_of(SEARCH, answer), memory_id)
    except Unreadable as unreadable:
        why = f"memory {memory_id!r} cannot be read back: the server lists no {GET}, and "
        ctx.undecided(f"{why}{unreadable}", unreadable.text)
        raise  # not reached: undecided raised


async def type_shown(ctx: MemContext, hit: Hit) -> str | None:
    """The type a search hit shows, else the one its memory shows read back (``live``)."""
    if hit.type is not None:
        return hit.type
    return (await live(ctx, hit.id, "type")).type


def absent_id(newest: MemoryId) -> MemoryId:
    """An id no memory has, of the form of ``newest``, the id of the store's newest memory:
    a number far beyond it (``obs_41`` -> ``obs_1000041``), else ``newest`` with a suffix."""
    if isinstance(newest, int):
        return newest + BEYOND_NEWEST
    digits = len(newest) - len(newest.rstrip("0123456789"))
    if digits:
        return f"{newest[:-digits]}{int(newest[-digits:]) + BEYOND_NEWEST}"
    return f"{newest}-absent"


async def hard_flag(ctx: MemContext) -> str | None:
    """The hard-delete flag ``mem_delete``'s schema publishes, if any (upstream's
    ``hard_delete`` before the seed's ``hard``, so that DEL-004 can tell a server ignoring
    ``hard`` from one honouring it)."""
    published = await ctx.properties(DELETE)
    return published_name(DELETE, "hard_delete", published)


async def delete(ctx: MemContext, memory_id: MemoryId, **flags: Any) -> Deleted | ToolFailure:
    """``mem_delete`` of ``memory_id`` with ``flags``."""
    found = await fact(ctx, DELETE, {"id": memory_id} | flags)
    ctx.require(isinstance(found, Deleted | ToolFailure), "mem_delete read", found)
    assert isinstance(found, Deleted | ToolFailure)
    return found


async def timeline(ctx: MemContext, memory_id: MemoryId) -> Timeline | ToolFailure:
    """``mem_timeline`` around ``memory_id``."""
    found = await fact(ctx, "mem_timeline", {"observation_id": memory_id})
    ctx.require(isinstance(found, Timeline | ToolFailure), "mem_timeline read", found)
    assert isinstance(found, Timeline | ToolFailure)
    return found


async def context(ctx: MemContext, project: Project | None, **extra: Any) -> Context | ToolFailure:
    """``mem_context`` of ``project`` (``None``: no project argument)."""
    arguments = extra | ({"project": project.name} if project is not None else {})
    found = await fact(ctx, CONTEXT, arguments)
    ctx.require(isinstance(found, Context | ToolFailure), "mem_context read", found)
    assert isinstance(found, Context | ToolFailure)
    return found


async def read_context(ctx: MemContext, project: Project) -> Context:
    """``context``, for a read that must succeed to say anything: a failure stops the check."""
    found = await context(ctx, project)
    ctx.require(isinstance(found, Context), "mem_context succeeded", found)
    assert isinstance(found, Context)
    return found


def titles(found: Context | SearchResult | ToolFailure) -> list[str]:
    """The titles a context or a search shows (none for a failure)."""
    if isinstance(found, SearchResult):
        return [hit.title for hit in found.hits]
    if isinstance(found, Context):
        return [o.title for o in (*found.pinned, *found.observations, *found.personal)]
    return []


def shows(found: Context | SearchResult | ToolFailure, token: str) -> bool:
    """Whether ``token`` is in a title that a search found, or anywhere in what a context shows
    (a context echoes no token of the kit's, so any form of answer tells)."""
    if isinstance(found, Context):
        return token in found.shown
    return any(token in title for title in titles(found))
