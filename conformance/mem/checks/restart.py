"""SAVE-008: a saved memory survives a restart of the server on the same data folder.

The harness restarts a server it starts over stdio, where each extra client is a server
process of its own on the run's data folder: one saves and is stopped (its client closed, its
process ended), a new one is started and searched. A server reached over HTTP or in this process
is not restarted by the harness, so the rule is not applicable there.
"""

from __future__ import annotations

from .context import MemContext
from .registry import check
from .steps import found_ids, fresh_project, saved_memory


@check(rules=("SAVE-008",), tools=("mem_save", "mem_search"), waits=True)
async def saves_survive_a_restart(ctx: MemContext) -> None:
    session = ctx.session
    if not session.connection.extra_is_a_process:
        reason = "the harness restarts only a server it starts over stdio; this one it does not"
        ctx.not_applicable("SAVE-008", reason)
        return
    project = await fresh_project(ctx)
    token = ctx.unique("restart")
    async with session.extra_client(None) as saving:
        with session.over(saving):
            memory = await saved_memory(ctx, project, token)
    # the process that saved has stopped; a new one starts on the same data folder
    async with session.extra_client(None) as reading:
        with session.over(reading):
            found = await found_ids(ctx, token, project=project.name)
    ctx.expect(
        "SAVE-008",
        memory in found,
        expected=f"memory #{memory} found by a server started after the one that saved it stopped",
        observed=found,
    )
