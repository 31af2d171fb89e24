"""Updates (UPD): mem_update changes the fields it is given of a live memory, and nothing else.

The memory's old title and content hold one token, its new title another and its new content a
third, so that a search tells which text the index holds (UPD-002) and whether an update made a
second memory (UPD-001). A failed update "changes nothing": a live memory reads back the same
(every field it shows read back), and an update of an unknown or soft-deleted id
leaves nothing a search finds by the title it tried to set.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..facts import Deleted, Observation, ToolFailure, Updated
from .context import MemContext
from .registry import check
from .steps import (
    Project,
    absent_id,
    done,
    fact,
    found_ids,
    fresh_project,
    live,
    saved_memory,
    what_why,
)

SAVE, SEARCH = "mem_save", "mem_search"
UPDATE, DELETE = "mem_update", "mem_delete"


@check(rules=("UPD-001", "UPD-002"), tools=(SAVE, UPDATE, SEARCH))
async def update_changes_the_memory(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    old, titled, told = ctx.unique("old"), ctx.unique("newtitle"), ctx.unique("newbody")
    memory_id = await saved_memory(ctx, project, old)
    changes = {"title": f"Renamed {titled}", "content": what_why(told, "an updated memory")}
    answer = await fact(ctx, UPDATE, {"id": memory_id} | changes)
    ctx.expect(
        "UPD-001", isinstance(answer, Updated), expected="mem_update succeeds", observed=answer
    )
    memory = await live(ctx, memory_id, "title", "content")
    ctx.expect(
        "UPD-001",
        (memory.title, memory.content) == (changes["title"], changes["content"]),
        expected=f"#{memory_id} shows the new title and content",
        observed=memory,
    )
    by_title = await found_ids(ctx, titled, project=project.name)
    by_content = await found_ids(ctx, told, project=project.name)
    ctx.expect(
        "UPD-001",
        set(by_title + by_content) <= {memory_id},
        expected=f"no memory but #{memory_id} holds the new text",
        observed={"by title": by_title, "by content": by_content},
    )
    ctx.expect(
        "UPD-002",
        memory_id in by_title,
        expected=f"mem_search finds #{memory_id} by {titled}, a word of its new title",
        observed=by_title,
    )
    by_old = await found_ids(ctx, old, project=project.name)
    ctx.expect(
        "UPD-002",
        memory_id not in by_old,
        expected=f"mem_search no longer finds #{memory_id} by {old}, its old word",
        observed=by_old,
    )


@check(rules=("UPD-003",), tools=(SAVE, UPDATE))
async def update_keeps_what_it_is_not_given(ctx: MemContext) -> None:
    """Only the title is given; the memory has a type, scope and topic key none would default
    to."""
    project = await fresh_project(ctx)
    token = ctx.unique("partial")
    topic_key = f"decision/{token}"
    memory_id = await saved_memory(
        ctx, project, token, "decision", scope="personal", topic_key=topic_key
    )
    kept_fields = ("type", "scope", "topic_key")
    before = await live(ctx, memory_id, *kept_fields)
    title = f"Retitled {token}"
    await fact(ctx, UPDATE, {"id": memory_id, "title": title})
    after = await live(ctx, memory_id, "title")
    ctx.require(after.title == title, f"mem_update gave #{memory_id} its new title", after)
    for field in kept_fields:
        kept = getattr(before, field)
        ctx.expect(
            "UPD-003",
            getattr(after, field) == kept,
            expected=f"{field} still {kept!r}",
            observed=getattr(after, field),
        )


def _as_read(memory: Observation) -> Observation:
    """A memory's fields, without the envelope its read came in."""
    return replace(memory, envelope=None)


async def _expect_refused(ctx: MemContext, arguments: dict[str, Any], what: str) -> None:
    answer = await fact(ctx, UPDATE, arguments)
    ctx.expect(
        "UPD-004",
        isinstance(answer, ToolFailure),
        expected=f"mem_update {what} answers isError",
        observed=answer,
    )


async def _expect_no_memory(
    ctx: MemContext, project: Project | None, token: str, what: str
) -> None:
    """Expect that mem_search finds nothing by ``token`` in ``project`` (``None``: where a
    search without project looks, the current project, where an update that made a memory of
    an unknown id would have put it)."""
    ids = await found_ids(ctx, token, **({"project": project.name} if project else {}))
    ctx.expect("UPD-004", not ids, expected=f"{what}: no memory found by {token}", observed=ids)


@check(rules=("UPD-004",), tools=(SAVE, DELETE, UPDATE, SEARCH))
async def update_of_nothing_fails(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    token = ctx.unique("untouched")
    memory_id = await saved_memory(ctx, project, token)
    before = await live(ctx, memory_id)
    await _expect_refused(ctx, {"id": memory_id}, "with no field to change")
    after = await live(ctx, memory_id)
    ctx.expect(
        "UPD-004",
        _as_read(after) == _as_read(before),
        expected=f"#{memory_id} as it was: {before}",
        observed=after,
    )
    unknown, renamed = absent_id(memory_id), ctx.unique("renamed")
    await _expect_refused(ctx, {"id": unknown, "title": f"Memory {renamed}"}, f"of #{unknown}")
    await _expect_no_memory(ctx, None, renamed, f"after the update of unknown #{unknown}")
    await done(ctx, DELETE, {"id": memory_id}, Deleted)
    revived = ctx.unique("revived")
    arguments = {"id": memory_id, "title": f"Memory {revived}"}
    await _expect_refused(ctx, arguments, f"of soft-deleted #{memory_id}")
    for word in (revived, token):
        await _expect_no_memory(
            ctx, project, word, f"after the update of soft-deleted #{memory_id}"
        )
