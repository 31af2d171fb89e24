"""Checks of forget's erasure (PRIV-007, DESIGN's ruling "Forget erases").

Seen, like the plaintext checks of pending candidates (``privacy``), through the files the
target descriptor lists under ``[state] files``: the accepted record's text must be in them
before forget (else the harness cannot see where the server keeps it), in none of them once
forget has answered ``projection_invalidation: "complete"``, and, whatever it answered, in none
of them once the server has stopped cleanly: the harness looks again after it has closed the
run's connections, when it started the server's processes (``CheckContext.after_stop``). A
"pending" answer of a server the harness does not stop cannot be judged.
"""

from __future__ import annotations

from engram_conformance.strategies.engram_memory import envelopes

from ...state_files import holding, state_files
from .context import ADMIT, CAPTURE, FORGET, CheckContext
from .registry import check

RULE = "PRIV-007"


@check(rules=(RULE,), tools=(CAPTURE, ADMIT, FORGET))
async def forget_erases_the_text(ctx: CheckContext) -> None:
    """A record of two distinctive words, seen in the state files (the positive control), then
    forgotten: with "complete", neither word is left in any state file."""
    words = (ctx.unique("erasedfirst"), ctx.unique("erasedsecond"))
    record = await ctx.accepted(f"note {words[0]} {words[1]}")
    files = state_files(ctx)
    if not files:
        ctx.not_applicable(RULE, "the target descriptor's [state] files match no file")
        return
    if not holding(files, words):
        ctx.not_applicable(
            RULE,
            f"an accepted record's text is in none of the {len(files)} state files: the harness "
            "cannot see where the server keeps it",
        )
        return
    forgotten = await ctx.forget(record)
    ctx.require(envelopes.ok(forgotten), "forget of an accepted record failed", forgotten)
    invalidation = envelopes.value(forgotten).get("projection_invalidation")
    calls = ctx.calls()  # the judgement after the stop shows this check's calls

    def judge_after_stop() -> None:
        left = holding(state_files(ctx), words)
        ctx.expect_calls(
            RULE,
            not left,
            expected="no word of the forgotten text in any state file once the server has "
            f"stopped (forget answered projection_invalidation {invalidation!r})",
            observed=left,
            calls=calls,
        )

    judged_later = ctx.after_stop(judge_after_stop)
    if invalidation != "complete":
        if not judged_later:
            ctx.not_applicable(
                RULE,
                f"forget answered projection_invalidation {invalidation!r}: the erasure is due "
                "once the server has stopped cleanly, and the harness does not stop this target",
            )
        return
    left = holding(state_files(ctx), words)
    ctx.expect(
        RULE,
        not left,
        expected='forget answered projection_invalidation "complete": no word of the '
        "forgotten text in any state file",
        observed=left,
    )
