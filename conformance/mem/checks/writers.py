"""SAVE-013: saves spread over several server processes on one data folder are all kept.

How several agents run on one machine: each its own ``engram mcp``, one data folder. The harness
opens ``WRITERS`` extra clients of a server it starts over stdio (each a process of its own on the
run's data folder) and has them save ``SAVES_EACH`` memories each, all at once; then, over its
own client, it searches for them. Every save must succeed (a locked database that reaches the
agent as a failed save is the bug users reported upstream) and every memory must be found once:
none lost, none doubled. A server reached over HTTP or in this process has no processes the
harness starts, so the rule is not applicable there.
"""

from __future__ import annotations

from collections import Counter
from contextlib import AsyncExitStack

import anyio
from mcp import Client

from ...observation import Observation
from ..answer_text import Unreadable
from ..answers import read
from ..facts import Saved, SearchResult
from .context import MemContext
from .registry import check
from .steps import Project, fresh_project, search, titles, what_why

WRITERS = 3
SAVES_EACH = 4
RULE = "SAVE-013"


@check(rules=(RULE,), tools=("mem_save", "mem_search"), waits=True)
async def several_writers_lose_nothing(ctx: MemContext) -> None:
    session = ctx.session
    if not session.connection.extra_is_a_process:
        reason = "the harness starts several server processes only of a server it starts over stdio"
        ctx.not_applicable(RULE, reason)
        return
    project = await fresh_project(ctx)
    token = ctx.unique("writers")
    names = [f"Writer {token} w{w} s{s}" for w in range(WRITERS) for s in range(SAVES_EACH)]
    answers: dict[str, Observation] = {}
    async with AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(session.extra_client(None)) for _ in range(WRITERS)
        ]
        async with anyio.create_task_group() as group:
            for writer, client in enumerate(clients):
                mine = names[writer * SAVES_EACH : (writer + 1) * SAVES_EACH]
                group.start_soon(_write, ctx, client, project, mine, answers)
    refused = {title: answer.summary() for title, answer in answers.items() if not _saved(answer)}
    ctx.expect(
        RULE,
        not refused,
        expected=f"all {len(names)} saves of {WRITERS} processes on one data folder succeed",
        observed=refused,
    )
    searched = await search(ctx, token, project=project.name, limit=20)
    ctx.require(isinstance(searched, SearchResult), "mem_search succeeded", searched)
    found = Counter(titles(searched))
    wrong = {name: found[name] for name in names if found[name] != 1}
    ctx.expect(
        RULE,
        not wrong,
        expected=f"each of the {len(names)} memories found exactly once by mem_search {token!r}",
        observed=f"found so many times: {wrong}",
    )


async def _write(
    ctx: MemContext,
    client: Client,
    project: Project,
    titles: list[str],
    answers: dict[str, Observation],
) -> None:
    """Save ``titles`` one after another over ``client`` (one writer's process)."""
    with ctx.session.over(client):
        for title in titles:
            arguments = {"title": title, "content": what_why(title), "project": project.name}
            answers[title] = await ctx.call("mem_save", arguments | {"type": "discovery"})


def _saved(answer: Observation) -> bool:
    if answer.outcome != "result" or answer.is_error:
        return False
    try:
        return isinstance(read("mem_save", answer), Saved)
    except Unreadable:
        return False
