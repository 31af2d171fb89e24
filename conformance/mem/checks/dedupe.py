"""Dedupe (DEDUP): a save that repeats one inside the window makes no second observation.

Each check saves, in a fresh project, memories whose title and content hold a unique token, and
counts the observations with ``mem_search`` by that token in that project: v1.7.0's ``mem_save``
answers no id, and the id a save answers says nothing about how many rows it left. A repeated
save is sent and read, but its answer is judged only where the rule speaks of it (DEDUP-001: the
second call does not fail); elsewhere the rule is about what is stored. Counters are read back
as the server shows them (``steps.live``: ``mem_get_observation``, else the memory's search
record).

DEDUP-002 needs a duplicate to judge: when the repeat was not absorbed (DEDUP-001's business) it
is undecided. It waits a little over a second between the saves, so that a clock of whole
seconds moves. DEDUP-005 (how long the window lasts) is not decided here.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..facts import Deleted, MemoryId, Saved
from .context import MemContext
from .registry import check
from .steps import (
    Project,
    done,
    fact,
    found_ids,
    fresh_project,
    live,
    memory_arguments,
    saved_id,
    what_why,
)
from .times import instant

SAVE, SEARCH, DELETE = "mem_save", "mem_search", "mem_delete"
#: how long DEDUP-002 waits between a save and its repeat (a clock of whole seconds moves)
SEEN_AGAIN_AFTER_S = 1.1


def _arguments(project: Project, token: str, **changes: Any) -> dict[str, Any]:
    """A ``mem_save`` in ``project`` whose title and content hold ``token``."""
    memory = memory_arguments(token, "a memory saved twice") | {"project": project.name}
    return memory | changes


async def _saved(
    ctx: MemContext, project: Project, token: str, arguments: dict[str, Any]
) -> MemoryId:
    """The id of the memory a successful save of ``arguments`` made."""
    return await saved_id(ctx, project, await done(ctx, SAVE, arguments, Saved), token)


async def _expect_absorbed(
    ctx: MemContext, rule: str, project: Project, token: str, first: MemoryId, counted: int
) -> None:
    """Expect that the repeat left one observation, the first, its duplicate_count one more
    than the ``counted`` it showed before (the seed gives the increment, not a start)."""
    ids = await found_ids(ctx, token, project=project.name)
    ctx.expect(
        rule,
        ids == [first],
        expected=f"mem_search by {token} finds one observation, #{first}",
        observed=ids,
    )
    after = await _duplicates(ctx, first)
    ctx.expect(
        rule,
        after == counted + 1,
        expected=f"#{first} duplicate_count {counted + 1}, one more than before the repeat",
        observed=after,
    )


async def _duplicates(ctx: MemContext, memory_id: MemoryId) -> int:
    """The duplicate_count ``memory_id`` shows now (none shown: the check is undecided)."""
    count = (await live(ctx, memory_id, "duplicate_count")).duplicate_count
    assert count is not None
    return count


@check(rules=("DEDUP-001",), tools=(SAVE, SEARCH))
async def repeated_save_is_absorbed(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    token = ctx.unique("twice")
    arguments = _arguments(project, token)
    first = await _saved(ctx, project, token, arguments)
    counted = await _duplicates(ctx, first)
    repeat = await ctx.call(SAVE, arguments)  # only its success is judged: any answer text
    ctx.expect(
        "DEDUP-001",
        repeat.outcome == "result" and not repeat.is_error,
        expected="the repeated mem_save succeeds (isError false)",
        observed=repeat,
    )
    await _expect_absorbed(ctx, "DEDUP-001", project, token, first, counted)


def _instant(ctx: MemContext, stamp: str) -> datetime:
    """A timestamp the server wrote, as a time; one that reads as none stops the check."""
    moment = instant(stamp)
    ctx.require(moment is not None, "last_seen_at readable as an ISO 8601 time", stamp)
    assert moment is not None
    return moment


@check(rules=("DEDUP-002",), tools=(SAVE, SEARCH), waits=True)
async def repeat_is_seen_again(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    token = ctx.unique("seen")
    arguments = _arguments(project, token)
    first = await _saved(ctx, project, token, arguments)
    before = (await live(ctx, first, "last_seen_at")).last_seen_at
    assert before is not None
    await ctx.wait(SEEN_AGAIN_AFTER_S)
    await fact(ctx, SAVE, arguments)
    ids = await found_ids(ctx, token, project=project.name)
    ctx.require(ids == [first], f"the repeated save absorbed into #{first}", ids)
    after = (await live(ctx, first)).last_seen_at
    ctx.expect(
        "DEDUP-002",
        after is not None and _instant(ctx, after) > _instant(ctx, before),
        expected=f"last_seen_at later than {before} after the duplicate save",
        observed=after,
    )


@check(rules=("DEDUP-003",), tools=(SAVE, SEARCH))
async def differing_saves_are_kept_apart(ctx: MemContext) -> None:
    """Each variant differs from the first save in one of the four the seed compares."""
    project, other = await fresh_project(ctx), await fresh_project(ctx, "other")
    token = ctx.unique("apart")
    first = _arguments(project, token)
    await done(ctx, SAVE, first, Saved)
    variants = {
        "content": first | {"content": first["content"] + "\nAnd one more line."},
        "title": first | {"title": first["title"] + " again"},
        "type": first | {"type": "decision"},
    }
    for differing, arguments in variants.items():
        before = await found_ids(ctx, token, project=project.name)
        await done(ctx, SAVE, arguments, Saved)
        after = await found_ids(ctx, token, project=project.name)
        ctx.expect(
            "DEDUP-003",
            len(after) == len(before) + 1 and set(before) < set(after),
            expected=f"a save differing in {differing} only adds one to the {before} found",
            observed=after,
        )
    await done(ctx, SAVE, first | {"project": other.name}, Saved)
    elsewhere = await found_ids(ctx, token, project=other.name)
    mine = await found_ids(ctx, token, project=project.name)
    ctx.expect(
        "DEDUP-003",
        len(elsewhere) == 1 and elsewhere[0] not in mine,
        expected=f"a save differing in project only makes one observation of {other.name}",
        observed={other.name: elsewhere, project.name: mine},
    )


@check(rules=("DEDUP-004",), tools=(SAVE, SEARCH))
async def scope_is_not_compared(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    token = ctx.unique("scoped")
    arguments = _arguments(project, token, scope="project")
    first = await _saved(ctx, project, token, arguments)
    counted = await _duplicates(ctx, first)
    await fact(ctx, SAVE, arguments | {"scope": "personal"})
    await _expect_absorbed(ctx, "DEDUP-004", project, token, first, counted)


@check(rules=("DEDUP-006",), tools=(SAVE, SEARCH))
async def content_compared_loosely(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    token = ctx.unique("loose")
    content = f"Same  Content for {token}\n\nWritten   In  Mixed Case"
    first = await _saved(ctx, project, token, _arguments(project, token, content=content))
    counted = await _duplicates(ctx, first)
    loosely = " ".join(content.lower().split())
    await fact(ctx, SAVE, _arguments(project, token, content=loosely))
    await _expect_absorbed(ctx, "DEDUP-006", project, token, first, counted)


async def _expect_new_after_delete(
    ctx: MemContext,
    project: Project,
    token: str,
    saves: tuple[dict[str, Any], dict[str, Any]],
    what: str,
) -> None:
    """Save the first of ``saves``, soft-delete it, save the second (``what``): one observation
    found, a new one."""
    first, again = saves
    deleted = await _saved(ctx, project, token, first)
    await done(ctx, DELETE, {"id": deleted}, Deleted)
    await fact(ctx, SAVE, again)
    ids = await found_ids(ctx, token, project=project.name)
    ctx.expect(
        "DEDUP-007",
        len(ids) == 1 and ids[0] != deleted,
        expected=f"{what} of soft-deleted #{deleted} makes a new observation",
        observed=ids,
    )


@check(rules=("DEDUP-007",), tools=(SAVE, DELETE, SEARCH))
async def soft_deleted_memories_are_not_matched(ctx: MemContext) -> None:
    """An identical save, then a revision of a topic (same key, new content)."""
    project = await fresh_project(ctx)
    token = ctx.unique("gone")
    identical = _arguments(project, token)
    await _expect_new_after_delete(ctx, project, token, (identical, identical), "a repeat")
    keyed_token = ctx.unique("gonekey")
    keyed = _arguments(project, keyed_token, topic_key=f"discovery/{keyed_token}")
    revised = keyed | {"content": what_why(keyed_token, "the topic, revised")}
    saves = (keyed, revised)
    await _expect_new_after_delete(ctx, project, keyed_token, saves, "a save with the topic_key")
