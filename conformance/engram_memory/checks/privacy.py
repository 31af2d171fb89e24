"""Checks of the privacy rules: no plaintext of candidates at rest or in logs, no stored secrets.

The harness sees a server's storage only through the files the target descriptor lists under
``[state] files`` (``ctx.state_files``) and the server's stderr log when it started the server
(``ctx.server_log``). Distinctive marker words are captured, then every byte is searched for them.
"""

from __future__ import annotations

from engram_conformance.strategies.engram_memory import envelopes
from engram_conformance.strategies.engram_memory.credentials import CATALOGUE

from ...state_files import holding, state_files
from .context import ADMIT, CAPTURE, GET, SEARCH, WITHDRAW, CheckContext
from .lifecycle_steps import (
    credential_candidate,
    expect_hidden,
    outcome,
    require_admission_accepted,
)
from .registry import check


@check(rules=("PRIV-001",), tools=(CAPTURE,))
async def pending_candidate_is_not_stored_in_clear(ctx: CheckContext) -> None:
    text, attestation = ctx.unique("canarytext"), ctx.unique("canaryattestation")
    arguments = ctx.capture_arguments(f"note {text}")
    arguments["evidence"]["attestation"] = f"attested {attestation}"
    captured = await ctx.capture(arguments)
    ctx.require(envelopes.ok(captured), "capture failed", captured)
    files = state_files(ctx)
    if not files:
        ctx.not_applicable("PRIV-001", "the target descriptor's [state] files match no file")
        return
    found = holding(files, (text, attestation))
    ctx.expect(
        "PRIV-001",
        not found,
        expected=f"no plaintext of the pending candidate in the {len(files)} state files",
        observed=found,
    )


@check(rules=("PRIV-002",), tools=(CAPTURE, ADMIT, WITHDRAW))
async def ended_candidates_leave_no_plaintext(ctx: CheckContext) -> None:
    """Withdrawn and rejected candidates in the state files; those and a pending one in the log."""
    withdrawn = ctx.unique("withdrawn")
    answer = await ctx.withdraw(await ctx.pending(f"note {withdrawn}"))
    ctx.require(envelopes.ok(answer), "withdraw of a pending candidate failed", answer)
    ended = [withdrawn]
    if ctx.policy.rejects_secrets:
        candidate_id, rejected = await credential_candidate(ctx)
        answer = await ctx.admit(candidate_id)
        ctx.require(outcome(answer).get("status") == "rejected", "not rejected", answer)
        ended.append(rejected)
    pending = ctx.unique("pending")
    await ctx.pending(f"note {pending}")
    files = state_files(ctx)
    logs = [ctx.server_log] if ctx.server_log is not None and ctx.server_log.is_file() else []
    if not files and not logs:
        ctx.not_applicable("PRIV-002", "no [state] file and no server log to search")
        return
    if files:
        found = holding(files, ended)
        ctx.expect(
            "PRIV-002",
            not found,
            expected="no plaintext of a withdrawn or rejected candidate in the state files",
            observed=found,
        )
    if logs:
        found = holding(logs, [*ended, pending])
        ctx.expect(
            "PRIV-002",
            not found,
            expected="no plaintext of a pending, withdrawn or rejected candidate in stderr",
            observed=found,
        )


@check(rules=("PRIV-003",), tools=(CAPTURE, WITHDRAW))
async def withdraw_destroys_the_data_key(ctx: CheckContext) -> None:
    withdrawn = await ctx.withdraw(await ctx.pending())
    ctx.expect(
        "PRIV-003",
        envelopes.value(withdrawn).get("key_destruction") == "complete",
        expected='key_destruction "complete"',
        observed=withdrawn,
    )


@check(rules=("PRIV-006",), tools=(CAPTURE, ADMIT, SEARCH, GET))
async def credentials_are_never_stored(ctx: CheckContext) -> None:
    """One capture per entry of the credential catalogue (every form of section 4, and
    evasions: format characters, fullwidth forms, a pair split over two components): each is
    rejected at admission and never returned, once a clean capture's admission is accepted
    (the control). All carry one marker word, searched for once at the end: each admitted one
    is judged by its kind (get and search), and search returns no rejected one."""
    if not ctx.policy.rejects_secrets:
        ctx.not_applicable("PRIV-006", "the target does not reject credentials (rejects_secrets)")
        return
    await require_admission_accepted(ctx)
    marker = ctx.unique("secret")
    admitted = {}
    for credential in CATALOGUE:
        candidate_id, _ = await credential_candidate(ctx, credential, marker)
        answer = await ctx.admit(candidate_id)
        ctx.expect(
            "PRIV-006",
            outcome(answer).get("status") == "rejected",
            expected=f"a capture carrying a {credential.label} is rejected at admission",
            observed=answer,
        )
        if "record_id" in outcome(answer):
            admitted[credential.label] = outcome(answer)["record_id"]
    found = await ctx.found(marker)
    stray = [record_id for record_id in found if record_id not in admitted.values()]
    ctx.expect(
        "PRIV-006",
        stray == [],
        expected="search never returns a capture whose admission was rejected",
        observed=stray,
    )
    for label, record_id in admitted.items():
        await expect_hidden(ctx, "PRIV-006", record_id, marker, f"it carries a {label}")
