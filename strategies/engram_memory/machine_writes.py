"""The lifecycle machine's mutation rules: capture, request_admission, withdraw and forget, each
delivered answered, with its answer lost, or sent several times at once; reuses of earlier
idempotency keys (replays and conflicts); and the confirmation gate."""

from __future__ import annotations

import unicodedata
from collections.abc import Hashable
from typing import Any

from engram_conformance.spec.engram_memory.tool_names import ADMIT, CAPTURE, FORGET, WITHDRAW
from hypothesis import strategies as st
from hypothesis.stateful import initialize, multiple, precondition, rule

from . import envelopes
from .answers import Answer, field
from .machine_base import (
    CONFLICT_RULE,
    LIFECYCLE_REFUSALS,
    OTHER_REASON,
    OWNER,
    REASON,
    TARGET_FIELD,
    MachineBase,
    candidates,
    records,
)
from .machine_driver import DELIVERIES, UNHELD, Approval, Delivery
from .model import CandidateState, KeyUse, RecordState

#: The seed's outcome statuses of request_admission (duplicate_exact's meaning unverified).
DECISIONS = ("accepted", "rejected", "pending_adjudication", "duplicate_exact")
CONTEXT_UNAVAILABLE = -32603
CONFLICT = "DIGEST_CONFLICT"
#: How a refusal names a candidate's transition.
NOUN = {ADMIT: "admission", WITHDRAW: "withdraw"}
#: The rule a confirmation that does not hold breaks, by what is wrong with it.
UNHELD_RULE = {"expired": "GATE-004", "other_target": "GATE-003", "other_operation": "GATE-003"}
#: This kit's order: DIGEST_CONFLICT, and gate_failed, before the lifecycle's refusals.
CONFLICT_ORDER_RULE = "HOST-016"
GATE_ORDER_RULE = "GATE-011"
MAX_CANDIDATE_BYTES = 512
deliveries = st.sampled_from(DELIVERIES)


def sendable(candidate_id: Any) -> bool:
    """Whether a transition can name ``candidate_id``: request_admission's and withdraw's
    input takes a candidate_id of 1 to 512 UTF-8 bytes, NFC."""
    return (
        isinstance(candidate_id, str)
        and 0 < len(candidate_id.encode("utf-8", "surrogatepass")) <= MAX_CANDIDATE_BYTES
        and unicodedata.is_normalized("NFC", candidate_id)
    )


def latest_first(keys: list[str]) -> st.SearchStrategy[str]:
    """One of ``keys``, the latest first: Hypothesis favours (and shrinks towards) the first
    elements, and the keys of an example's first calls would otherwise take most of the reuses
    (an example starts with two captures and two admissions)."""
    return st.sampled_from(keys[::-1])


class MutationRules(MachineBase):
    def first_capture(self, key: str, rule_: str, delivery: Delivery = "answered") -> Any:
        """A capture with ``key``, judged a first capture under ``rule_``: its candidate_id;
        or no candidate (``multiple()``) when the id cannot be sent back. Its type and form
        are this kit's (ENV-012, judged by the per-call output checks), not the seed's."""
        term, arguments = self.new_capture(key)
        answer = self.mutate(CAPTURE, arguments, delivery)
        candidate = envelopes.value(answer).get("candidate_id")
        new = not isinstance(candidate, Hashable) or candidate not in self.own.candidates
        self.expect(
            rule_,
            self.is_fresh(CAPTURE, answer, delivery) and candidate is not None and new,
            "a first capture: committed_pending with a candidate_id never answered before",
            answer,
        )
        self.reserve(CAPTURE, arguments, answer)
        if not sendable(candidate):
            return multiple()
        self.own.captured(candidate, term)
        return candidate

    def reuse(self, key: str, tool: str, arguments: dict[str, Any]) -> None:
        """A call with an earlier reserved key: a replay or DIGEST_CONFLICT, as the model says."""
        identity = self._identity(key)
        first = self.model.reservations[identity]
        use = self.model.key_use(identity, tool, arguments)
        answer = self.call(tool, arguments)
        if use is KeyUse.REPLAY:
            self.expect_replay(tool, first.answer, answer)
            return
        rule_ = CONFLICT_RULE[use]
        target = arguments.get(TARGET_FIELD.get(tool, ""))
        # with another target or tool, on a target no transition can take, the seed gives no
        # order between the conflict and the lifecycle's refusal (with other content, the
        # first call's own target: the conflict, IDEM-005)
        unordered = (
            target is not None
            and use is not KeyUse.OTHER_CONTENT
            and not self.own.actionable(target)
        )
        order = CONFLICT_ORDER_RULE if unordered else None
        self.expect_refusal(
            rule_, CONFLICT, answer, f"{tool} with the key of a {first.tool} ({use})", order
        )
        if target is not None:
            self.own.refused(target, rule_)

    @rule(target=candidates, delivery=deliveries)
    def capture(self, delivery: Delivery) -> Any:
        self.driver.step(f"capture a new note ({delivery})")
        return self.first_capture(self.new_key(), "LIFE-001", delivery)

    @precondition(lambda self: self.refused)
    @rule(target=candidates, data=st.data())
    def capture_with_a_refused_key(self, data: st.DataObject) -> Any:
        """A key whose first call was refused reserved nothing: a capture with it is a first."""
        key, rule_ = data.draw(st.sampled_from(self.refused), label="refused key")
        self.driver.step(f"capture a new note with the refused key {key}")
        self.refused.remove((key, rule_))
        return self.first_capture(key, rule_)

    @precondition(lambda self: self.keys)
    @rule(data=st.data())
    def replay(self, data: st.DataObject) -> None:
        key = data.draw(latest_first(self.keys), label="key")
        first = self.model.reservations[self._identity(key)]
        self.driver.step(f"replay the {first.tool} of key {key}")
        self.expect_replay(first.tool, first.answer, self.call(first.tool, first.arguments))

    @precondition(lambda self: self.keys)
    @rule(data=st.data())
    def reuse_a_key(self, data: st.DataObject) -> None:
        """An earlier key in another call: a capture of other content, or a transition of a
        target of the scope, with its reason_ref or another. The model says which is the
        first call again (a replay) and which a conflict (other tool, target or content)."""
        key = data.draw(latest_first(self.keys), label="key")
        first = self.model.reservations[self._identity(key)]
        tools = [CAPTURE, *self.targeted_tools((first.tool, ADMIT, WITHDRAW, FORGET))]
        tool = data.draw(st.sampled_from(list(dict.fromkeys(tools))), label="tool")
        if tool == CAPTURE:
            self.driver.step(f"capture another note with the key {key}")
            self.reuse(key, CAPTURE, self.new_capture(key)[1])
            return
        target = self.draw_target(data, tool)
        reason = REASON if tool == ADMIT else data.draw(st.sampled_from((REASON, OTHER_REASON)))
        self.driver.step(f"{tool} {target} with the key {key} ({reason})")
        self.reuse(key, tool, self.transition(tool, target, key, reason))

    @precondition(lambda self: self.keys_of(ADMIT, WITHDRAW, FORGET))
    @rule(data=st.data())
    def transition_again_with_its_key(self, data: st.DataObject) -> None:
        """A transition's key with the same tool on a target of the scope: the first call's
        own target is a replay, any other a conflict (IDEM-006)."""
        key = data.draw(latest_first(self.keys_of(ADMIT, WITHDRAW, FORGET)), label="key")
        first = self.model.reservations[self._identity(key)]
        target = self.draw_target(data, first.tool)
        self.driver.step(f"{first.tool} {target} with the key {key} of that tool")
        self.reuse(key, first.tool, self.transition(first.tool, target, key))

    def moved(
        self, tool: str, target: str, delivery: Delivery
    ) -> tuple[dict[str, Any], Answer] | None:
        """``tool`` on ``target`` with a new key, delivered as ``delivery``: its arguments and
        answer; or None when the lifecycle must refuse it (a candidate no longer pending, a
        tombstoned record), as the answer must say, writing nothing. That refusal is judged
        before the delivery's answers agree: a server that takes such a target breaks it,
        whatever its several answers then say. An unsettled candidate
        (``CandidateState.UNSETTLED``) is pending unless the answer is the lifecycle's refusal."""
        key = self.new_key()
        arguments = self.transition(tool, target, key)
        answer, others = self.deliver(tool, arguments, delivery)
        refusal = self.refusal_due(tool, target)
        if refusal is not None:
            rule_, code, what = refusal
            self.expect_refused(target, key, rule_, code, answer, what)
        self.expect_agreement(tool, delivery, answer, others)
        if refusal is not None:
            return None
        candidate = self.own.candidates.get(target)
        if candidate is not None and candidate.state is CandidateState.UNSETTLED:
            pending = envelopes.code(answer) not in LIFECYCLE_REFUSALS
            self.own.settled(target, pending)
            if not pending:
                self.refused.append((key, "IDEM-014"))
                return None
        return arguments, answer

    def refusal_due(self, tool: str, target: str) -> tuple[str, str, str] | None:
        """The lifecycle's refusal of ``tool`` on ``target`` (rule, code, what is refused), or
        None when the target can be taken (or may be: unsettled)."""
        if tool == FORGET:
            if self.own.records[target].state is RecordState.TOMBSTONED:
                return "LIFE-016", "ALREADY_TERMINAL", "forget of a tombstoned record"
            return None
        state = self.own.candidates[target].state
        if state in (CandidateState.PENDING, CandidateState.UNSETTLED):
            return None
        return "LIFE-012", "ILLEGAL_TRANSITION", f"{NOUN[tool]} of a {state} candidate"

    def admission(self, candidate: str, delivery: Delivery = "answered") -> Any:
        """Request admission of ``candidate`` with a new key: its record id, if accepted."""
        sent = self.moved(ADMIT, candidate, delivery)
        if sent is None:
            return multiple()
        arguments, answer = sent
        outcome = field(envelopes.value(answer), "outcome")
        status, record = outcome.get("status"), outcome.get("record_id")
        self.expect_first(ADMIT, answer, delivery)
        self.expect_on(
            candidate,
            "LIFE-003",
            outcome.get("candidate_id") == candidate and status in DECISIONS,
            f"a first admission of the pending {candidate}: one of {', '.join(DECISIONS)} on it",
            answer,
        )
        accepted = status == "accepted"
        if accepted:
            self.expect(
                "LIFE-004",
                isinstance(record, str) and record not in self.own.records,
                f"{candidate} accepted: a record_id never answered before",
                answer,
            )
        self.own.admitted(candidate, status, record)
        self.reserve(ADMIT, arguments, answer)
        return record if accepted else multiple()

    @initialize(target=records)
    def admitted_records(self) -> Any:
        """Every example starts with two admitted captures, so that records are there to act
        on, and pages to follow ..."""
        self.driver.step("capture two new notes and request their admission")
        captured = [self.first_capture(self.new_key(), "LIFE-001") for _ in "12"]
        found = [self.admission(c) for c in captured if isinstance(c, str)]
        return multiple(*(record for record in found if isinstance(record, str)))

    @initialize(target=candidates)
    def pending_candidate(self) -> Any:
        """And with one pending capture, so that admission and withdrawal have a candidate from
        the first step (the captures above go to the records they became)."""
        self.driver.step("capture a new note")
        return self.first_capture(self.new_key(), "LIFE-001")

    @rule(target=records, candidate=candidates, delivery=deliveries)
    def admit(self, candidate: str, delivery: Delivery) -> Any:
        self.driver.step(f"request admission of {candidate} ({delivery})")
        return self.admission(candidate, delivery)

    @rule(candidate=candidates, delivery=deliveries)
    def withdraw(self, candidate: str, delivery: Delivery) -> None:
        self.driver.step(f"withdraw {candidate} ({delivery})")
        sent = self.moved(WITHDRAW, candidate, delivery)
        if sent is None:
            return
        arguments, answer = sent
        receipt = field(envelopes.value(answer), "receipt")
        self.expect_first(WITHDRAW, answer, delivery)
        self.expect_on(
            candidate,
            "LIFE-013",
            (receipt.get("from_state"), receipt.get("to_state")) == ("pending", "withdrawn"),
            f"withdraw of the pending {candidate}: a receipt from pending to withdrawn",
            answer,
        )
        self.own.withdrawn(candidate)
        self.reserve(WITHDRAW, arguments, answer)

    @rule(record=records, delivery=deliveries, again=st.booleans())
    def forget(self, record: str, delivery: Delivery, again: bool = False) -> None:
        """Forget ``record``; ``again``, then once more with a new key, as an agent that did
        not check first would (drawing a forgotten record from ``records`` alone seldom
        happens within an example's steps)."""
        self.driver.step(f"forget {record} ({delivery})" + (", then again" if again else ""))
        self.forgetting(record, delivery)
        if again:
            self.forgetting(record, "answered")

    def forgetting(self, record: str, delivery: Delivery) -> None:
        sent = self.moved(FORGET, record, delivery)
        if sent is None:
            return
        arguments, answer = sent
        receipt = field(envelopes.value(answer), "receipt")
        self.expect_first(FORGET, answer, delivery)
        self.expect_on(
            record,
            "LIFE-014",
            receipt.get("to_state") == "tombstoned",
            f"forget of the current {record}: a receipt to tombstoned",
            answer,
        )
        self.own.forgotten(record)
        self.reserve(FORGET, arguments, answer)
        gone = self.get(OWNER, record)
        self.expect(
            "LIFE-017", not envelopes.ok(gone), f"get of {record} once forgotten: NOT_FOUND", gone
        )

    @precondition(lambda self: self.driver.forges_confirmations)
    @rule(approval=st.sampled_from(UNHELD), data=st.data())
    def unconfirmed(self, approval: Approval, data: st.DataObject) -> None:
        """withdraw or forget without a confirmation that holds: refused, nothing written."""
        tool = data.draw(st.sampled_from(self.targeted_tools((WITHDRAW, FORGET))), label="tool")
        target = self.draw_target(data, tool)
        self.driver.step(f"{tool} {target} with {approval.replace('_', ' ')} confirmation")
        self.refuse_unconfirmed(tool, target, approval)

    def refuse_unconfirmed(self, tool: str, target: str, approval: Approval) -> None:
        """``tool`` on ``target`` (in any state) under ``approval``, a confirmation that does
        not hold: -32603 when there is none, else gate_failed (or, on a target no transition
        can take, the lifecycle's refusal: the seed gives no order between them)."""
        key = self.new_key()
        answer = self.call(tool, self.transition(tool, target, key), approval=approval)
        if approval == "absent":
            self.expect(
                "GATE-001",
                envelopes.code(answer) == CONTEXT_UNAVAILABLE,
                f"{tool} without a confirmation: JSON-RPC error {CONTEXT_UNAVAILABLE}",
                answer,
            )
            self.own.refused(target, "GATE-001")
            return
        what = f"{tool} under a confirmation of {approval.replace('_', ' ')}"
        order = None if self.own.actionable(target) else GATE_ORDER_RULE
        self.expect_refusal(UNHELD_RULE[approval], "gate_failed", answer, what, order)
        self.own.refused(target, "GATE-012")
        self.refused.append((key, "GATE-012"))
