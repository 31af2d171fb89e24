"""Deletes (DEL): a soft delete hides a memory, a hard delete removes it for good.

A hard delete sends the flag the server's schema publishes (``hard_delete``, upstream's, before
``hard``, the seed's; DEL-004 sends ``hard`` whatever the schema says, since that rule is about
the seed's spelling). A check first sees the memory where it is to disappear from, so that
"hidden" means something. Through MCP a soft and a hard delete differ in what a later delete
does (DEL-006), and DEL-004 tells them apart that way too: after a soft delete the published
hard delete still succeeds.

DEL-008 sees what the server keeps through the files the target descriptor lists under
``[state] files``, as the six-tool contract's erasure check does: the memory's two words must be
there before the hard delete (else the harness cannot see where the server keeps memories), and
in none of them once the harness has stopped the server cleanly (``after_stop``).

DEL-005 (soft-deleted memories recovered through the server's HTTP API) is no check: the spec
marks it untestable, since the contract is tested through MCP only and no target descriptor
names an HTTP API; the runner records it not applicable with that reason.
"""

from __future__ import annotations

from ...state_files import holding, state_files
from ..facts import Deleted, MemoryId, Timeline, ToolFailure
from .context import MemContext
from .registry import check
from .steps import (
    Project,
    absent_id,
    context,
    delete,
    done,
    found_ids,
    fresh_project,
    hard_flag,
    observation,
    read_context,
    saved_memory,
    shows,
    timeline,
    titles,
)

SAVE, SEARCH, CONTEXT, GET = "mem_save", "mem_search", "mem_context", "mem_get_observation"
DELETE, TIMELINE = "mem_delete", "mem_timeline"


async def _visible(ctx: MemContext, project: Project, token: str) -> MemoryId:
    """The id of a new memory of ``project``, seen by mem_search and in mem_context."""
    memory_id = await saved_memory(ctx, project, token)
    ids = await found_ids(ctx, token, project=project.name)
    ctx.require(memory_id in ids, f"mem_search finds #{memory_id} before the delete", ids)
    shown = await context(ctx, project)
    ctx.require(shows(shown, token), f"mem_context shows #{memory_id} before the delete", shown)
    return memory_id


async def _expect_hidden(
    ctx: MemContext, rule: str, project: Project, token: str, memory_id: MemoryId
) -> None:
    """Expect that neither mem_search nor mem_context shows the deleted memory."""
    ids = await found_ids(ctx, token, project=project.name)
    ctx.expect(
        rule,
        memory_id not in ids,
        expected=f"mem_search no longer finds #{memory_id}",
        observed=ids,
    )
    shown = await read_context(ctx, project)
    ctx.expect(
        rule,
        not shows(shown, token),
        expected=f"mem_context no longer shows #{memory_id}",
        observed=titles(shown),
    )


@check(rules=("DEL-001",), tools=(SAVE, DELETE, SEARCH, CONTEXT))
async def soft_delete_hides_the_memory(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    token = ctx.unique("softdel")
    memory_id = await _visible(ctx, project, token)
    answer = await delete(ctx, memory_id)
    ctx.expect(
        "DEL-001",
        isinstance(answer, Deleted),
        expected=f"mem_delete of #{memory_id} without a flag succeeds",
        observed=answer,
    )
    await _expect_hidden(ctx, "DEL-001", project, token, memory_id)


async def _neighbours(ctx: MemContext, memory_id: MemoryId) -> list[MemoryId]:
    """The ids of the memories a successful timeline of ``memory_id`` lists around it."""
    around = await timeline(ctx, memory_id)
    ctx.require(isinstance(around, Timeline), f"mem_timeline of #{memory_id} succeeded", around)
    assert isinstance(around, Timeline)
    return [entry.id for entry in (*around.before, *around.after)]


@check(rules=("DEL-002",), tools=(SAVE, DELETE, GET, TIMELINE))
async def soft_deleted_memory_is_unreachable(ctx: MemContext) -> None:
    """Two memories of one session: the deleted one, and the one it neighbours."""
    project = await fresh_project(ctx)
    gone = await saved_memory(ctx, project, ctx.unique("gone"))
    kept = await saved_memory(ctx, project, ctx.unique("kept"))
    before = await _neighbours(ctx, kept)
    ctx.require(gone in before, f"#{gone} a neighbour of #{kept} before the delete", before)
    await done(ctx, DELETE, {"id": gone}, Deleted)
    for tool, answer in (
        (GET, await observation(ctx, gone)),
        (TIMELINE, await timeline(ctx, gone)),
    ):
        ctx.expect(
            "DEL-002",
            isinstance(answer, ToolFailure),
            expected=f"{tool} of soft-deleted #{gone} answers isError",
            observed=answer,
        )
    after = await _neighbours(ctx, kept)
    ctx.expect(
        "DEL-002",
        gone not in after,
        expected=f"soft-deleted #{gone} no neighbour of #{kept} in mem_timeline",
        observed=after,
    )


@check(rules=("DEL-003",), tools=(SAVE, DELETE, SEARCH, CONTEXT))
async def hard_delete_removes_the_memory(ctx: MemContext) -> None:
    flag = await hard_flag(ctx)
    if flag is None:
        published = sorted(await ctx.properties(DELETE))
        ctx.expect(
            "DEL-003", False, expected="mem_delete takes hard_delete or hard", observed=published
        )
        return
    project = await fresh_project(ctx)
    token = ctx.unique("harddel")
    memory_id = await _visible(ctx, project, token)
    answer = await delete(ctx, memory_id, **{flag: True})
    ctx.expect(
        "DEL-003",
        isinstance(answer, Deleted),
        expected=f"mem_delete of #{memory_id} with {flag} true succeeds",
        observed=answer,
    )
    await _expect_hidden(ctx, "DEL-003", project, token, memory_id)
    if not await ctx.lists(GET):
        return
    got = await observation(ctx, memory_id)
    ctx.expect(
        "DEL-003",
        isinstance(got, ToolFailure),
        expected=f"mem_get_observation of hard-deleted #{memory_id} answers isError",
        observed=got,
    )


@check(rules=("DEL-004",), tools=(SAVE, DELETE))
async def delete_takes_the_seed_spelling(ctx: MemContext) -> None:
    """The later delete uses the published flag: after a soft delete it would still succeed."""
    properties = (await ctx.input_schema(DELETE)).get("properties")
    hard = properties.get("hard") if isinstance(properties, dict) else None
    ctx.expect(
        "DEL-004",
        isinstance(hard, dict) and hard.get("type") == "boolean",
        expected="mem_delete's schema lists a boolean hard",
        observed=properties,
    )
    project = await fresh_project(ctx)
    memory_id = await saved_memory(ctx, project, ctx.unique("seedhard"))
    answer = await delete(ctx, memory_id, hard=True)
    ctx.expect(
        "DEL-004",
        isinstance(answer, Deleted),
        expected=f"mem_delete(#{memory_id}, hard=true) succeeds",
        observed=answer,
    )
    flag = await hard_flag(ctx) or "hard"
    later = await delete(ctx, memory_id, **{flag: True})
    ctx.expect(
        "DEL-004",
        isinstance(later, ToolFailure),
        expected=f"a later mem_delete of #{memory_id} ({flag} true) answers isError",
        observed=later,
    )


@check(rules=("DEL-006",), tools=(SAVE, DELETE))
async def hard_delete_is_final(ctx: MemContext) -> None:
    flag = await hard_flag(ctx)
    published = sorted(await ctx.properties(DELETE))
    ctx.require(flag is not None, "mem_delete takes hard_delete or hard", published)
    assert flag is not None
    project = await fresh_project(ctx)
    memory_id = await saved_memory(ctx, project, ctx.unique("final"))
    await done(ctx, DELETE, {"id": memory_id}, Deleted)
    answer = await delete(ctx, memory_id, **{flag: True})
    ctx.expect(
        "DEL-006",
        isinstance(answer, Deleted),
        expected=f"a hard delete of soft-deleted #{memory_id} succeeds",
        observed=answer,
    )
    for flags, described in (({}, "no flag"), ({flag: True}, f"{flag} true")):
        again = await delete(ctx, memory_id, **flags)
        ctx.expect(
            "DEL-006",
            isinstance(again, ToolFailure),
            expected=f"after the hard delete, mem_delete of #{memory_id} ({described}) fails",
            observed=again,
        )


async def _expect_refused(ctx: MemContext, memory_id: MemoryId, what: str) -> None:
    answer = await delete(ctx, memory_id)
    ctx.expect(
        "DEL-007",
        isinstance(answer, ToolFailure),
        expected=f"mem_delete of {what} #{memory_id} answers isError",
        observed=answer,
    )


@check(rules=("DEL-007",), tools=(SAVE, DELETE))
async def deleting_nothing_fails(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    memory_id = await saved_memory(ctx, project, ctx.unique("twice"))
    await _expect_refused(ctx, absent_id(memory_id), "unknown")
    await done(ctx, DELETE, {"id": memory_id}, Deleted)
    await _expect_refused(ctx, memory_id, "soft-deleted")


@check(rules=("DEL-008",), tools=(SAVE, DELETE))
async def hard_delete_erases_the_text(ctx: MemContext) -> None:
    """A memory of two distinctive words (title, content), seen in the state files, then hard
    deleted: neither word in any state file once the server has stopped."""
    flag = await hard_flag(ctx)
    if flag is None:  # DEL-003's failure: the server publishes no hard delete
        ctx.undecided("mem_delete publishes no hard-delete flag")
    assert flag is not None
    project = await fresh_project(ctx)
    words = (ctx.unique("erasedtitle"), ctx.unique("erasedbody"))
    title, content = f"Memory {words[0]}", f"What: a memory to erase, {words[1]}"
    memory_id = await saved_memory(ctx, project, words[0], title=title, content=content)
    files = state_files(ctx)
    if not files:
        ctx.not_applicable("DEL-008", "the target descriptor's [state] files match no file")
        return
    if set(holding(files, words)) != set(words):
        why = f"a saved memory's words are not both in the {len(files)} state files"
        ctx.not_applicable("DEL-008", f"{why}: the harness cannot see where the server keeps it")
        return
    await done(ctx, DELETE, {"id": memory_id, flag: True}, Deleted)
    calls = ctx.calls()  # the judgement after the stop shows this check's calls

    def judge_after_stop() -> None:
        left = holding(state_files(ctx), words)
        ctx.expect_calls(
            "DEL-008",
            not left,
            expected=f"no word of hard-deleted #{memory_id} in any state file once the server "
            "has stopped",
            observed=left,
            calls=calls,
        )

    if not ctx.after_stop(judge_after_stop):
        why = "the erasure is due once the server has stopped, and the harness does not stop it"
        ctx.not_applicable("DEL-008", why)
