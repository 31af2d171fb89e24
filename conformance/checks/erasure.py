"""Checks of forget's erasure (PRIV-007, DESIGN's ruling "Forget erases").

Seen, like the plaintext checks of pending candidates (``privacy``), through the files the
target descriptor lists under ``[state] files``: the accepted record's text must be in them
before forget (else the harness cannot see where the server keeps it), and in none of them once
forget has answered ``projection_invalidation: "complete"``. A "pending" answer promises the
erasure only after a clean stop, which the harness cannot bring about in the middle of a run.
"""

from __future__ import annotations

from .context import ADMIT, CAPTURE, FORGET, CheckContext
from .privacy import _holding, _state_files
from .registry import check

RULE = "PRIV-007"


@check(rules=(RULE,), tools=(CAPTURE, ADMIT, FORGET))
async def forget_erases_the_text(ctx: CheckContext) -> None:
    """A record of two distinctive words, seen in the state files (the positive control), then
    forgotten: with "complete", neither word is left in any state file."""
    words = (ctx.unique("erasedfirst"), ctx.unique("erasedsecond"))
    record = await ctx.accepted(f"note {words[0]} {words[1]}")
    files = _state_files(ctx)
    if not files:
        ctx.not_applicable(RULE, "the target descriptor's [state] files match no file")
        return
    if not _holding(files, words):
        ctx.not_applicable(
            RULE,
            f"an accepted record's text is in none of the {len(files)} state files: the harness "
            "cannot see where the server keeps it",
        )
        return
    forgotten = await ctx.forget(record)
    ctx.require(forgotten.ok, "forget of an accepted record failed", forgotten)
    invalidation = forgotten.value.get("projection_invalidation")
    if invalidation != "complete":
        ctx.not_applicable(
            RULE,
            f"forget answered projection_invalidation {invalidation!r}: the erasure is due once "
            "the server has stopped cleanly, and the harness does not stop a target mid-run",
        )
        return
    left = _holding(_state_files(ctx), words)
    ctx.expect(
        RULE,
        not left,
        expected='forget answered projection_invalidation "complete": no word of the '
        "forgotten text in any state file",
        observed=left,
    )
