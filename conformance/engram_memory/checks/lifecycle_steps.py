"""Steps shared by the lifecycle, retention and privacy checks.

Captures with a retention or a credential (from the catalogue in ``strategies.credentials``),
waiting for an ``expires_at`` to pass, and the comparisons that say a record is hidden or that
a refused capture wrote nothing.
"""

from __future__ import annotations

import copy
from typing import Any

from engram_conformance.spec.engram_memory import instant, wall_clock_ms
from engram_conformance.strategies.engram_memory import envelopes
from engram_conformance.strategies.engram_memory.credentials import DEFAULT, Credential

from ...observation import Observation
from .context import CheckContext

#: How soon an "expiring" capture expires: long enough to admit and read it first.
EXPIRY_DELAY_MS = 2_000
#: How long past an ``expires_at`` a check waits, so that the server's clock has passed it too.
EXPIRY_MARGIN_MS = 300


def outcome(admitted: Observation) -> dict[str, Any]:
    """The admission outcome of an observation ({} when there is none)."""
    found = envelopes.value(admitted).get("outcome")
    return found if isinstance(found, dict) else {}


def with_retention(arguments: dict[str, Any], **retention: Any) -> dict[str, Any]:
    """``arguments`` whose payload carries ``retention`` (derivative_rule make-ineligible)."""
    arguments["payload"]["retention"] = {"derivative_rule": "make-ineligible", **retention}
    return arguments


def with_reconciliation(arguments: dict[str, Any], families: list[str]) -> dict[str, Any]:
    """``arguments`` whose payload asks to reconcile with ``families`` (sorted, unique)."""
    arguments["payload"]["reconciliation"] = {"family_refs": families}
    return arguments


def expires_at(arguments: dict[str, Any], moment_ms: int) -> dict[str, Any]:
    """``arguments`` whose retention expires at ``moment_ms`` (epoch ms)."""
    return with_retention(arguments, expires_at=instant(moment_ms))


def expiring(ctx: CheckContext, text: str) -> tuple[dict[str, Any], int]:
    """Capture arguments of ``text`` that expire soon (within the ceiling), and when (ms)."""
    moment_ms = wall_clock_ms() + min(EXPIRY_DELAY_MS, ctx.policy.retention_ceiling_s * 1000)
    return expires_at(ctx.capture_arguments(text), moment_ms), moment_ms


#: An error reserves no idempotency key (IDEM-014, profile).
KEY_UNRESERVED = "IDEM-014"


async def wait_past(ctx: CheckContext, moment_ms: int) -> None:
    """Sleep until ``moment_ms`` (epoch ms) has passed by a margin."""
    await ctx.wait((moment_ms + EXPIRY_MARGIN_MS - wall_clock_ms()) / 1000)


async def require_admission_accepted(ctx: CheckContext) -> None:
    """The control of a check whose verdict rests on an admission that accepts nothing: the
    admission of a clean capture is accepted (the admission policy is accept-clean), or the
    check stops, ``error``."""
    admitted = await ctx.admit(await ctx.pending())
    accepted = outcome(admitted).get("status") == "accepted"
    ctx.require_accepted(admitted, "the admission of a clean capture (the control)", accepted)


def with_texts(arguments: dict[str, Any], texts: list[str]) -> dict[str, Any]:
    """``arguments`` whose primary component holds ``texts[0]`` and each further text is a
    component of its own after it (citing what the primary cites)."""
    payload = arguments["payload"]
    primary = next(
        c for c in payload["components"] if c["component_id"] == payload["primary_component_id"]
    )
    primary["text"] = texts[0]
    for number, text in enumerate(texts[1:], start=2):
        payload["components"].append(
            {**primary, "component_id": f"component:part-{number}", "kind": "context", "text": text}
        )
    return arguments


async def credential_candidate(
    ctx: CheckContext, credential: Credential = DEFAULT, word: str | None = None
) -> tuple[str, str]:
    """A pending candidate whose text carries ``credential`` (split over components as it
    says); a word that finds it (``word``, or a new one)."""
    word = word or ctx.unique("secret")
    arguments = with_texts(ctx.capture_arguments(), credential.texts(word))
    captured = await ctx.capture(arguments)
    ctx.require(
        envelopes.ok(captured) and "candidate_id" in envelopes.value(captured),
        "capture failed",
        captured.summary(),
    )
    return envelopes.value(captured)["candidate_id"], word


async def expect_hidden(ctx: CheckContext, rule: str, record_id: Any, word: str, why: str) -> None:
    """Record under ``rule`` that get of ``record_id`` is NOT_FOUND and search for ``word``
    does not return it."""
    read = await ctx.get(record_id)
    ctx.expect(
        rule, envelopes.code(read) == "NOT_FOUND", expected=f"get NOT_FOUND: {why}", observed=read
    )
    found = await ctx.found(word)
    ctx.expect(
        rule, record_id not in found, expected=f"search omits the record: {why}", observed=found
    )


def rekeyed(ctx: CheckContext, arguments: dict[str, Any]) -> dict[str, Any]:
    """A copy of capture ``arguments`` under an idempotency key of its own: the twin of a
    refused capture, to put its one broken part back in."""
    return {**copy.deepcopy(arguments), "idempotency_key": ctx.key("capture")}


async def expect_refused_capture(
    ctx: CheckContext,
    rule: str,
    arguments: dict[str, Any],
    code: str,
    why: str,
    put_right: dict[str, Any] | None = None,
) -> None:
    """Record under ``rule`` that the capture answers ``code``, and under ``KEY_UNRESERVED``
    that it wrote nothing.

    Writing nothing is observed through the idempotency key: a clean capture with the refused
    call's key is then a first capture (committed_pending), not a replay or DIGEST_CONFLICT.
    That a refusal leaves the key free is DESIGN's reading of "writes nothing" (the seed's
    mutation guard reserves keys), so it is charged to that profile rule, not to ``rule``.
    First a capture must be committed (the control): a refusal shows nothing of a server
    that refuses that too. The control is ``put_right`` where the check gives it, the refused
    call with its one broken part put back (``rekeyed``), so that the refusal shows that part
    refused and nothing else; a clean capture otherwise.
    """
    control = await ctx.capture(put_right)
    what = "the call put right" if put_right is not None else "a clean capture"
    ctx.require_accepted(control, f"{what} (the control)")
    refused = await ctx.capture(arguments)
    ctx.expect(rule, envelopes.code(refused) == code, expected=f"{code}: {why}", observed=refused)
    retried = await ctx.capture(ctx.capture_arguments(key=arguments["idempotency_key"]))
    ctx.expect(
        KEY_UNRESERVED,
        envelopes.value(retried).get("status") == "committed_pending",
        expected="nothing written: the refused call's idempotency key then commits a new capture",
        observed=retried,
    )
