"""Checks of the lifecycle rules: capture, admission, withdraw, forget, and what each reveals.

A candidate is captured ``pending``; admission moves it to ``accepted_current`` (a record),
``rejected``, or leaves it pending (``pending_adjudication``); withdraw ends a pending candidate
and forget tombstones a record for good. Search and get reveal only current, accepted records.
"""

from __future__ import annotations

import re
from typing import Any

from engram_conformance.spec.engram_memory import wall_clock_ms
from engram_conformance.strategies.engram_memory import envelopes

from ...observation import Observation
from .calls import UNKNOWN_RECORD
from .context import ADMIT, CAPTURE, FORGET, GET, SEARCH, WITHDRAW, CheckContext
from .lifecycle_steps import (
    credential_candidate,
    expect_hidden,
    expect_refused_capture,
    expiring,
    outcome,
    rekeyed,
    require_admission_accepted,
    wait_past,
    with_reconciliation,
)
from .registry import check

RECORD_ID = re.compile(r"mem_[a-z2-7]+")
STATUSES = ("accepted", "rejected", "pending_adjudication", "duplicate_exact")
ADMISSION_FIELDS = ("cursor", "decision_receipt_digest", "transaction_receipt_digest")
RECEIPT_FIELDS = (
    "event_id",
    "operation",
    "from_state",
    "to_state",
    "cursor",
    "event_digest",
    "authorization_receipt_digest",
    "transaction_receipt_digest",
)
#: What a record carries besides the captured payload's fields (DESIGN.md, Finer points).
WRITER_FIELDS = ("record_id", "payload_digest", "record_digest", "recorded_at", "trust")
HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS


def _missing(value: dict[str, Any], fields: tuple[str, ...]) -> list[str]:
    return [name for name in fields if name not in value]


def _object(value: dict[str, Any], name: str) -> dict[str, Any]:
    """``value[name]`` when it is an object, else {} (so that a malformed answer just differs)."""
    found = value.get(name)
    return found if isinstance(found, dict) else {}


def _is_record_id(value: Any) -> bool:
    return isinstance(value, str) and RECORD_ID.fullmatch(value) is not None


def _expect_receipt(ctx: CheckContext, rule: str, answer: Observation, **states: str) -> None:
    """The withdraw or forget receipt: every field, these ``states``, and replayed false."""
    receipt = _object(envelopes.value(answer), "receipt")
    differing = {name: receipt.get(name) for name in states if receipt.get(name) != states[name]}
    problems = {"missing": _missing(receipt, RECEIPT_FIELDS), "differing": differing}
    ctx.expect(
        rule,
        envelopes.ok(answer) and not any(problems.values()),
        expected=f"a receipt with {', '.join(RECEIPT_FIELDS)} and {states}",
        observed=problems if envelopes.ok(answer) else answer,
    )
    ctx.expect(
        rule,
        envelopes.value(answer).get("replayed") is False,
        expected="replayed false on a first call",
        observed=answer,
    )


def _expect_payload_fields(
    ctx: CheckContext, packet: dict[str, Any], payload: dict[str, Any], where: str
) -> None:
    """LIFE-007 on one returned packet: the payload as captured plus the writer's fields.

    Fields the packet lists as redacted are not asked for.
    """
    record = _object(packet, "record")
    redacted = packet.get("redacted_fields") or []
    hidden = {pointer[1:] for pointer in redacted if isinstance(pointer, str)}
    differing = [
        name for name in payload if name not in hidden and record.get(name) != payload[name]
    ]
    missing = [name for name in WRITER_FIELDS if name not in hidden and name not in record]
    ctx.expect(
        "LIFE-007",
        not differing and not missing,
        expected=f"{where} returns the captured payload's fields as captured, plus "
        + ", ".join(WRITER_FIELDS),
        observed={"differing": differing, "missing": missing, "record": record},
    )


async def _admission(ctx: CheckContext, arguments: dict[str, Any]) -> Observation:
    """The admission answer for a capture of ``arguments`` (the check stops if capture fails)."""
    captured = await ctx.capture(arguments)
    ctx.require(
        envelopes.ok(captured) and "candidate_id" in envelopes.value(captured),
        "capture failed",
        captured,
    )
    return await ctx.admit(envelopes.value(captured)["candidate_id"])


def _record_id(admitted: Observation) -> str | None:
    """The record_id of an accepted outcome (None for any other answer)."""
    decided = outcome(admitted)
    return decided.get("record_id") if decided.get("status") == "accepted" else None


def _expect_from_state(ctx: CheckContext, rule: str, forgotten: Observation, state: str) -> None:
    ctx.expect(
        rule,
        _object(envelopes.value(forgotten), "receipt").get("from_state") == state,
        expected=f"forget reports from_state {state}",
        observed=forgotten,
    )


async def _forgotten_text(ctx: CheckContext) -> str:
    """The text of a record accepted, then forgotten, in the check's scope."""
    text = f"note {ctx.unique('forgotten')}"
    forgotten = await ctx.forget(await ctx.accepted(text))
    ctx.require(envelopes.ok(forgotten), "forget of an accepted record failed", forgotten)
    return text


def _valid_time(ctx: CheckContext, word: str, t: int, t_end: int | None = None) -> dict[str, Any]:
    """Capture arguments of a text holding ``word``, valid from ``t`` (to ``t_end``), in ms."""
    arguments = ctx.capture_arguments(f"note {word}", valid_from_ms=t)
    if t_end is not None:
        arguments["payload"]["valid_time"]["t_end"] = t_end
    return arguments


@check(rules=("LIFE-001",), tools=(CAPTURE,))
async def capture_commits_a_pending_candidate(ctx: CheckContext) -> None:
    captured = await ctx.capture()
    ctx.expect(
        "LIFE-001",
        envelopes.value(captured).get("status") == "committed_pending",
        expected="status committed_pending",
        observed=captured,
    )
    fields = ("candidate_id", "cursor", "transaction_receipt_digest")
    ctx.expect(
        "LIFE-001",
        envelopes.ok(captured) and not _missing(envelopes.value(captured), fields),
        expected=f"{', '.join(fields)} in the answer",
        observed=captured,
    )


@check(rules=("LIFE-002", "SCHEMA-035"), tools=(CAPTURE, SEARCH, GET))
async def pending_candidate_is_neither_searchable_nor_readable(ctx: CheckContext) -> None:
    """get of the candidate's id is refused; get of a record id nobody issued, the control,
    is accepted (NOT_FOUND)."""
    control = await ctx.get(UNKNOWN_RECORD)
    what = "get of a record id nobody issued (the control)"
    ctx.require_accepted(
        control, what, envelopes.ok(control) or envelopes.code(control) == "NOT_FOUND"
    )
    word = ctx.unique("pending")
    candidate_id = await ctx.pending(f"note {word}")
    found = await ctx.found(word)
    ctx.expect(
        "LIFE-002", found == [], expected="search finds no pending candidate", observed=found
    )
    read = await ctx.get(candidate_id)
    code = "NOT_FOUND" if _is_record_id(candidate_id) else "INVALID_SCHEMA"
    ctx.expect_argument_refusal("LIFE-002", read, code, f"get of the candidate_id {candidate_id!r}")


@check(rules=("LIFE-003", "LIFE-006"), tools=(CAPTURE, ADMIT))
async def admission_answers_an_outcome_with_receipts(ctx: CheckContext) -> None:
    candidate_id = await ctx.pending()
    admitted = await ctx.admit(candidate_id)
    decided = outcome(admitted)
    ctx.expect(
        "LIFE-003",
        decided.get("status") in STATUSES and decided.get("candidate_id") == candidate_id,
        expected=f"outcome.status among {STATUSES} and outcome.candidate_id {candidate_id!r}",
        observed=admitted,
    )
    ctx.expect(
        "LIFE-003",
        not _missing(decided, ADMISSION_FIELDS),
        expected=f"{', '.join(ADMISSION_FIELDS)} in the outcome",
        observed=admitted,
    )
    if ctx.policy.admission != "accept-clean":
        ctx.not_applicable("LIFE-006", f"the target's admission policy is {ctx.policy.admission}")
        return
    ctx.expect(
        "LIFE-006",
        decided.get("status") == "accepted",
        expected="a clean capture is accepted (admission accept-clean)",
        observed=admitted,
    )


#: Free text in decomposed form: "cafe" and a combining acute accent, not the precomposed "é".
NOT_NFC_TEXT = "cafe\u0301"


@check(rules=("LIFE-004", "LIFE-007"), tools=(CAPTURE, ADMIT, GET, SEARCH))
async def accepted_candidate_becomes_a_readable_record(ctx: CheckContext) -> None:
    """Its text is free text that is not NFC (a combining accent): DESIGN takes free text as
    sent, so the record must return it unchanged (LIFE-007)."""
    word = ctx.unique("accepted")
    arguments = ctx.capture_arguments(f"note {word} {NOT_NFC_TEXT}")
    admitted = await _admission(ctx, arguments)
    decided = outcome(admitted)
    ctx.require(decided.get("status") == "accepted", "a clean capture was not accepted", admitted)
    record_id = decided.get("record_id")
    ctx.expect(
        "LIFE-004",
        _is_record_id(record_id),
        expected="an accepted outcome carries a record_id matching ^mem_[a-z2-7]+$",
        observed=admitted,
    )
    if not _is_record_id(record_id):
        return
    read = await ctx.get(record_id)
    ctx.expect(
        "LIFE-004",
        _object(envelopes.value(read), "record").get("record_id") == record_id,
        expected=f"get of {record_id} answers the record, with that record_id",
        observed=read,
    )
    payload = arguments["payload"]
    if envelopes.ok(read):
        _expect_payload_fields(ctx, envelopes.value(read), payload, "get")
    found = await ctx.search(word)
    packets = [
        packet
        for packet in envelopes.value(found).get("records", [])
        if _object(packet, "record").get("record_id") == record_id
    ]
    ctx.require(len(packets) == 1, "search does not find the accepted record once", found)
    _expect_payload_fields(ctx, packets[0], payload, "search")


@check(rules=("LIFE-005",), tools=(CAPTURE, ADMIT))
async def rejection_is_a_success_result(ctx: CheckContext) -> None:
    if not ctx.policy.rejects_secrets:
        ctx.not_applicable("LIFE-005", "the target does not reject credentials (rejects_secrets)")
        return
    candidate_id, _ = await credential_candidate(ctx)
    admitted = await ctx.admit(candidate_id)
    ctx.expect(
        "LIFE-005",
        envelopes.ok(admitted),
        expected="the admission of a credential-carrying capture (rejected) answers ok true",
        observed=admitted,
    )


@check(rules=("LIFE-008", "LIFE-005"), tools=(CAPTURE, ADMIT, FORGET))
async def forgotten_content_is_held_for_adjudication(ctx: CheckContext) -> None:
    captured = await ctx.capture(ctx.capture_arguments(await _forgotten_text(ctx)))
    ctx.expect(
        "LIFE-008",
        envelopes.value(captured).get("status") == "committed_pending",
        expected="a capture of forgotten content still answers committed_pending",
        observed=captured,
    )
    ctx.require("candidate_id" in envelopes.value(captured), "capture failed", captured)
    admitted = await ctx.admit(envelopes.value(captured)["candidate_id"])
    ctx.expect(
        "LIFE-005",
        envelopes.ok(admitted),
        expected="pending_adjudication answers ok true",
        observed=admitted,
    )
    ctx.expect(
        "LIFE-008",
        outcome(admitted).get("status") == "pending_adjudication",
        expected="its admission, which would otherwise accept, answers pending_adjudication",
        observed=admitted,
    )


@check(rules=("LIFE-010",), tools=(CAPTURE, ADMIT, FORGET))
async def tombstone_guard_is_bound_to_the_scope(ctx: CheckContext) -> None:
    text = await _forgotten_text(ctx)
    elsewhere = ctx.new_identity("elsewhere")
    candidate_id = await ctx.pending(text, identity=elsewhere)
    admitted = await ctx.admit(candidate_id, identity=elsewhere)
    ctx.expect(
        "LIFE-010",
        outcome(admitted).get("status") == "accepted",
        expected="content forgotten in another (tenant, workspace) is accepted here",
        observed=admitted,
    )


@check(rules=("LIFE-011",), tools=(CAPTURE, ADMIT, FORGET, WITHDRAW))
async def adjudication_leaves_the_candidate_pending(ctx: CheckContext) -> None:
    candidate_id = await ctx.pending(await _forgotten_text(ctx))
    first = await ctx.admit(candidate_id)
    ctx.require(
        outcome(first).get("status") == "pending_adjudication",
        "admission of forgotten content did not answer pending_adjudication",
        first,
    )
    again = await ctx.admit(candidate_id)
    ctx.expect(
        "LIFE-011",
        outcome(again).get("status") == "pending_adjudication",
        expected="a new admission request decides afresh (the tombstone still holds it)",
        observed=again,
    )
    withdrawn = await ctx.withdraw(candidate_id)
    ctx.expect(
        "LIFE-011",
        _object(envelopes.value(withdrawn), "receipt").get("from_state") == "pending",
        expected="withdraw of the candidate reports from_state pending",
        observed=withdrawn,
    )


async def _ended_candidates(ctx: CheckContext) -> dict[str, tuple[str, str, int]]:
    """An accepted, a withdrawn and (if the target rejects secrets) a rejected candidate.

    State -> the candidate_id, a word that finds its text, and how many records search finds.
    """
    word = ctx.unique("accepted")
    accepted = await ctx.pending(f"note {word}")
    admitted = await ctx.admit(accepted)
    ctx.require(outcome(admitted).get("status") == "accepted", "not accepted", admitted)
    ended = {"accepted": (accepted, word, 1)}
    word = ctx.unique("withdrawn")
    withdrawn = await ctx.pending(f"note {word}")
    answer = await ctx.withdraw(withdrawn)
    ctx.require(envelopes.ok(answer), "withdraw of a pending candidate failed", answer)
    ended["withdrawn"] = (withdrawn, word, 0)
    if ctx.policy.rejects_secrets:
        rejected, word = await credential_candidate(ctx)
        answer = await ctx.admit(rejected)
        ctx.require(outcome(answer).get("status") == "rejected", "not rejected", answer)
        ended["rejected"] = (rejected, word, 0)
    return ended


@check(rules=("LIFE-012",), tools=(CAPTURE, ADMIT, WITHDRAW, SEARCH))
async def ended_candidates_refuse_transitions(ctx: CheckContext) -> None:
    for state, (candidate_id, word, records) in (await _ended_candidates(ctx)).items():
        for answer in (await ctx.admit(candidate_id), await ctx.withdraw(candidate_id)):
            ctx.expect(
                "LIFE-012",
                envelopes.code(answer) == "ILLEGAL_TRANSITION",
                expected=f"{answer.tool} (new key) of a {state} candidate: ILLEGAL_TRANSITION",
                observed=answer,
            )
        found = await ctx.found(word)
        ctx.expect(
            "LIFE-012",
            len(found) == records,
            expected=f"nothing written: search finds {records} record(s) of the {state} one",
            observed=found,
        )


@check(rules=("LIFE-013",), tools=(CAPTURE, WITHDRAW))
async def withdraw_answers_its_receipt(ctx: CheckContext) -> None:
    withdrawn = await ctx.withdraw(await ctx.pending())
    _expect_receipt(
        ctx, "LIFE-013", withdrawn, operation="withdraw", from_state="pending", to_state="withdrawn"
    )
    ctx.expect(
        "LIFE-013",
        envelopes.value(withdrawn).get("key_destruction") in ("pending", "complete"),
        expected='key_destruction "pending" or "complete"',
        observed=withdrawn,
    )


@check(rules=("LIFE-013",), tools=(CAPTURE, WITHDRAW, ADMIT, SEARCH))
async def withdrawn_candidate_never_becomes_a_record(ctx: CheckContext) -> None:
    """Once the admission of a clean capture is accepted (the control)."""
    await require_admission_accepted(ctx)
    word = ctx.unique("withdrawn")
    candidate_id = await ctx.pending(f"note {word}")
    withdrawn = await ctx.withdraw(candidate_id)
    ctx.require(envelopes.ok(withdrawn), "withdraw of a pending candidate failed", withdrawn)
    admitted = await ctx.admit(candidate_id)
    ctx.expect(
        "LIFE-013",
        outcome(admitted).get("status") != "accepted",
        expected="admission of a withdrawn candidate accepts nothing",
        observed=admitted,
    )
    found = await ctx.found(word)
    ctx.expect("LIFE-013", found == [], expected="search finds no record of it", observed=found)


@check(rules=("LIFE-014",), tools=(CAPTURE, ADMIT, FORGET))
async def forget_answers_its_receipt(ctx: CheckContext) -> None:
    forgotten = await ctx.forget(await ctx.accepted())
    _expect_receipt(
        ctx,
        "LIFE-014",
        forgotten,
        operation="tombstone",
        from_state="accepted_current",
        to_state="tombstoned",
    )
    value = envelopes.value(forgotten)
    ctx.expect(
        "LIFE-014",
        value.get("projection_invalidation") in ("pending", "complete"),
        expected='projection_invalidation "pending" or "complete"',
        observed=forgotten,
    )


@check(rules=("LIFE-016",), tools=(CAPTURE, ADMIT, FORGET))
async def forget_of_a_tombstoned_record_is_already_terminal(ctx: CheckContext) -> None:
    record_id = await ctx.accepted()
    forgotten = await ctx.forget(record_id)
    ctx.require(envelopes.ok(forgotten), "forget of an accepted record failed", forgotten)
    key = ctx.key("forget")
    again = await ctx.forget(record_id, key=key)
    ctx.expect(
        "LIFE-016",
        envelopes.code(again) == "ALREADY_TERMINAL",
        expected="forget (new key) of a tombstoned record answers ALREADY_TERMINAL",
        observed=again,
    )
    reused = await ctx.forget(await ctx.accepted(), key=key)
    ctx.expect(
        "LIFE-016",
        envelopes.ok(reused) and envelopes.value(reused).get("replayed") is False,
        expected="nothing written: the refused call's key then forgets another record afresh",
        observed=reused,
    )


@check(rules=("LIFE-015", "LIFE-018"), tools=(CAPTURE, ADMIT, GET, SEARCH, FORGET), waits=True)
async def retention_expiry_moves_records_to_expired(ctx: CheckContext) -> None:
    """One record admitted before its expires_at, one candidate admitted after it."""
    early, _ = expiring(ctx, f"note {ctx.unique('early')}")
    early_id = _record_id(await _admission(ctx, early))
    ctx.require(early_id is not None, "a clean capture expiring later was not accepted")
    word = ctx.unique("late")
    late, expires_ms = expiring(ctx, f"note {word}")
    captured = await ctx.capture(late)
    ctx.require(
        envelopes.ok(captured), "capture with a retention within the ceiling failed", captured
    )
    await wait_past(ctx, expires_ms)
    admitted = await ctx.admit(envelopes.value(captured).get("candidate_id"))
    late_id = _record_id(admitted)
    ctx.expect(
        "LIFE-018",
        late_id is not None,
        expected="a candidate whose expires_at has passed is accepted with a record_id",
        observed=admitted,
    )
    if late_id is not None:
        await expect_hidden(ctx, "LIFE-018", late_id, word, "the record is at once expired")
        _expect_from_state(ctx, "LIFE-018", await ctx.forget(late_id), "expired")
    _expect_from_state(ctx, "LIFE-015", await ctx.forget(early_id), "expired")


@check(rules=("LIFE-017",), tools=(CAPTURE, ADMIT, GET, SEARCH, FORGET))
async def forgotten_record_never_returns(ctx: CheckContext) -> None:
    word = ctx.unique("forgotten")
    text = f"note {word}"
    record_id = await ctx.accepted(text)
    read = await ctx.get(record_id)
    ctx.require(envelopes.ok(read), "get of an accepted record failed", read)
    forgotten = await ctx.forget(record_id)
    ctx.require(envelopes.ok(forgotten), "forget of an accepted record failed", forgotten)
    await expect_hidden(ctx, "LIFE-017", record_id, word, "the record was forgotten")
    await ctx.admit(await ctx.pending(text))
    await expect_hidden(
        ctx, "LIFE-017", record_id, word, "forgotten, whatever a new capture of it does"
    )


@check(rules=("LIFE-019",), tools=(CAPTURE, ADMIT, GET, SEARCH))
async def valid_time_decides_currency(ctx: CheckContext) -> None:
    """A record bounded around now is current; one from the future or already ended is not."""
    now = wall_clock_ms()
    bounds = {  # why -> t, t_end, whether the record is current
        "t an hour ago and t_end in an hour": (now - HOUR_MS, now + HOUR_MS, True),
        "t in the future": (now + DAY_MS, None, False),
        "t_end passed": (0, now - DAY_MS, False),
    }
    for why, (t, t_end, current) in bounds.items():
        word = ctx.unique("validtime")
        admitted = await _admission(ctx, _valid_time(ctx, word, t, t_end))
        ctx.expect(
            "LIFE-019",
            outcome(admitted).get("status") == "accepted",
            expected=f"a clean capture with {why} is accepted",
            observed=admitted,
        )
        record_id = _record_id(admitted)
        ctx.require(record_id is not None, "an accepted outcome carries no record_id", admitted)
        if current:
            read, found = await ctx.get(record_id), await ctx.found(word)
            ctx.expect(
                "LIFE-019",
                envelopes.ok(read) and record_id in found,
                expected=f"a record with {why} (epoch ms) is current: get and search return it",
                observed={"get": read.summary(), "search": found},
            )
        else:
            await expect_hidden(ctx, "LIFE-019", record_id, word, f"its {why}")


@check(rules=("LIFE-020",), tools=(CAPTURE, ADMIT, FORGET))
async def valid_time_leaves_the_state_unchanged(ctx: CheckContext) -> None:
    ended = _valid_time(ctx, ctx.unique("ended"), 0, wall_clock_ms() - DAY_MS)
    record_id = _record_id(await _admission(ctx, ended))
    ctx.require(record_id is not None, "a clean capture whose t_end has passed was not accepted")
    _expect_from_state(ctx, "LIFE-020", await ctx.forget(record_id), "accepted_current")


@check(rules=("LIFE-021", "IDEM-014"), tools=(CAPTURE,))
async def reconciliation_needs_host_consent(ctx: CheckContext) -> None:
    """The refused capture's control is the same capture reconciling with no family."""
    family = f"family:{ctx.unique('unconsented')}"
    unconsented = with_reconciliation(ctx.capture_arguments(), [family])
    put_right = with_reconciliation(rekeyed(ctx, unconsented), [])
    why = "a reconciliation family the host has not consented to"
    await expect_refused_capture(ctx, "LIFE-021", unconsented, "UNAUTHORIZED", why, put_right)
    consented = sorted(ctx.policy.reconciliation_families)[:1]
    if consented:
        captured = await ctx.capture(with_reconciliation(ctx.capture_arguments(), consented))
        ctx.expect(
            "LIFE-021",
            envelopes.value(captured).get("status") == "committed_pending",
            expected=f"a capture reconciling with the consented {consented[0]!r} is committed",
            observed=captured,
        )
