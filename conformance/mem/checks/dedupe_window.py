"""DEDUP-005: the dedupe window, and that it runs from the existing observation's creation.

The check waits the window out, so it runs only where the descriptor gives a window the harness
can wait (``[policy] dedupe_window_s`` between ``SHORTEST_S`` and ``LONGEST_S``): without one
(upstream's default is 15 minutes, which the seed does not give) or with a longer one the rule is
not applicable, the reason saying which. A first save, a repeat half
a window later (absorbed: it is inside the window however it is measured), and a repeat just past
the window after the first save's creation but well inside it after the repeat: a server that
measures from the last repeat (``last_seen_at``) absorbs it, one that measures from creation
makes a new observation. ``MARGIN_S`` covers servers that keep times to the second.
"""

from __future__ import annotations

import time

from .context import MemContext
from .registry import check
from .steps import found_ids, fresh_project, save, what_why

#: the windows the check waits out: below SHORTEST_S, times kept to the second blur the two
#: measures; above LONGEST_S, a run waits too long
SHORTEST_S = 5.0
LONGEST_S = 30.0
MARGIN_S = 1.2


@check(rules=("DEDUP-005",), tools=("mem_save", "mem_search"), waits=True)
async def window_runs_from_creation(ctx: MemContext) -> None:
    window = ctx.policy.dedupe_window_s
    if window is None:
        ctx.not_applicable(
            "DEDUP-005",
            "the descriptor gives no dedupe window ([policy] dedupe_window_s), so the server's "
            "is not known (upstream's is 15 minutes); the harness waits out windows of "
            f"{SHORTEST_S:g} to {LONGEST_S:g} s, for a server started with one",
        )
        return
    if not SHORTEST_S <= window <= LONGEST_S:
        ctx.not_applicable(
            "DEDUP-005",
            f"the descriptor gives a dedupe window of {window:g} s; the harness waits out "
            f"windows of {SHORTEST_S:g} to {LONGEST_S:g} s only",
        )
        return
    project = await fresh_project(ctx)
    token = ctx.unique("window")
    title, content = f"Window {token}", what_why(token)
    await save(ctx, project, title, content)
    created = time.monotonic()
    first = await found_ids(ctx, token, project=project.name)
    ctx.require(len(first) == 1, f"one memory found by {token}", first)
    await ctx.wait(window / 2)
    await save(ctx, project, title, content)
    inside = await found_ids(ctx, token, project=project.name)
    ctx.expect(
        "DEDUP-005",
        inside == first,
        expected=f"a repeat {window / 2:g} s after the first save absorbed into #{first[0]}",
        observed=inside,
    )
    await ctx.wait(created + window + MARGIN_S - time.monotonic())
    await save(ctx, project, title, content)
    after = await found_ids(ctx, token, project=project.name)
    ctx.expect(
        "DEDUP-005",
        len(after) == 2 and first[0] in after,
        expected=(
            f"a repeat {window + MARGIN_S:g} s after the first save's creation (its window of "
            f"{window:g} s over; {window / 2 + MARGIN_S:g} s after the last repeat) saved anew"
        ),
        observed=after,
    )
