"""The lifecycle state machine's state and judgement, shared by its rules.

Each example starts with ``Driver.begin`` (a fresh tenant and workspace, so no server reset).
The machine keeps the model of what the server must hold (``strategies.model``) and compares
every answer with it. A broken expectation tells the driver, which keeps the example's steps
and calls, then raises a ``Violation`` of its rule.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from engram_conformance.spec.engram_memory.tool_names import (
    ADMIT,
    CAPTURE,
    FORGET,
    GET,
    SEARCH,
    WITHDRAW,
)
from hypothesis import reject
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine

from ..violations import violation_of
from . import envelopes
from .answers import (
    RECEIPT_TOOLS,
    Answer,
    comparable,
    effect,
    field,
    is_replay_of,
    receipt_identity,
    record_ids,
    repeats_receipt,
    says_first,
    says_replay,
)
from .machine_driver import AT_ONCE, Approval, Delivery, Driver
from .model import CandidateState, KeyUse, MemoryModel, RecordState, ScopeModel

OWNER = "owner"
FOREIGN_ACTORS = ("another tenant", "another workspace")
ACTORS = (OWNER, *FOREIGN_ACTORS)

REASON = "reason:model"
OTHER_REASON = "reason:model-other"
#: A record_id of the contract's pattern that no server issued (32 zero bytes in base32).
UNKNOWN_RECORD = "mem_" + "a" * 52
SEARCH_LIMIT = 50  # the schema's maximum; an example makes fewer records than this
MAX_PACKET_BYTES = 1_048_576
TARGET_FIELD = {ADMIT: "candidate_id", WITHDRAW: "candidate_id", FORGET: "record_id"}

REPLAY_RULE = {CAPTURE: "IDEM-001", ADMIT: "IDEM-003", WITHDRAW: "IDEM-004", FORGET: "IDEM-004"}
#: A replay of withdraw or forget repeats the first receipt's event_id and event_digest (a
#: decision of this kit; the seed's replay is ``REPLAY_RULE``'s).
RECEIPT_RULE = "IDEM-015"
CONFLICT_RULE = {
    KeyUse.OTHER_CONTENT: "IDEM-005",
    KeyUse.OTHER_TARGET: "IDEM-006",
    KeyUse.OTHER_TOOL: "IDEM-007",
}
#: The rule that the answers to one delivery of a mutation must agree under.
DELIVERY_RULE = {"answer lost": "IDEM-012", "sent at once": "IDEM-013"}
#: The seed's refusals for "the lifecycle state forbids it".
LIFECYCLE_REFUSALS = ("ILLEGAL_TRANSITION", "ALREADY_TERMINAL")
#: Answers that show a target left its state (taken, or out of reach).
MOVED = (*LIFECYCLE_REFUSALS, "NOT_FOUND")

candidates = Bundle("candidates")
records = Bundle("records")


class MachineBase(RuleBasedStateMachine):
    driver: ClassVar[Driver]

    def __init__(self) -> None:
        super().__init__()
        identities = self.driver.begin()
        if identities is None:
            reject()
        self.identities: dict[str, tuple[str, str, str]] = identities
        self.model = MemoryModel()
        self.term = self.driver.unique("model")  # a word of every capture of the example
        self.keys: list[str] = []  # the owner's reserved keys
        self.refused: list[tuple[str, str]] = []  # keys whose first call was refused, and why
        #: False after a step that only read: the invariant's search may skip it (a read that
        #: changed the store shows at the next step's)
        self.may_have_written = True

    # the model of the owner's scope -------------------------------------------------------
    @property
    def own(self) -> ScopeModel:
        tenant, workspace, _ = self.identities[OWNER]
        return self.model.scope((tenant, workspace))

    def _identity(self, key: str) -> tuple[str, str, str, str]:
        return (*self.identities[OWNER], key)

    def reserve(self, tool: str, arguments: dict[str, Any], answer: Answer) -> None:
        key = arguments["idempotency_key"]
        self.model.reserve(self._identity(key), tool, arguments, answer)
        self.keys.append(key)

    # expectations ---------------------------------------------------------------------------
    def expect(self, rule: str, ok: bool, expected: str, observed: Any) -> None:
        if ok:
            self.driver.passed(rule)
            return
        self.driver.violated(rule, expected, observed)
        raise violation_of(rule)(f"{rule}: {expected}")

    def expect_on(self, target: str, rule: str, ok: bool, expected: str, answer: Answer) -> None:
        """An expectation about ``target`` under ``rule``: when it holds, the refused calls
        made on the target since its last transition wrote nothing either; when it breaks and
        ``answer`` shows the target left its state (``MOVED``), the last of them is to blame
        (``ScopeModel.blame``), else ``rule``."""
        refusals = self._refusals(target)
        if ok:
            for held in {rule, *refusals}:
                self.driver.passed(held)
            return
        self.expect(
            self.own.blame(target, rule, envelopes.code(answer) in MOVED), False, expected, answer
        )

    def _refusals(self, target: str) -> list[str]:
        item = self.own.candidates.get(target) or self.own.records.get(target)
        return list(item.refusals) if item is not None else []

    def expect_replay(self, tool: str, first: Answer, answer: Answer) -> None:
        """The first call's effect, as a replay (the seed's); for withdraw and forget, also
        the first receipt's identity (this kit's)."""
        self.expect(
            REPLAY_RULE[tool],
            is_replay_of(tool, answer, first),
            f"{tool} replay: the first call's effect {effect(tool, first)!r}, as a replay",
            answer,
        )
        if tool in RECEIPT_TOOLS:
            self.expect(
                RECEIPT_RULE,
                repeats_receipt(tool, answer, first),
                f"{tool} replay: the first receipt's (event_id, event_digest) "
                f"{receipt_identity(first)!r}",
                answer,
            )

    def expect_first(self, tool: str, answer: Answer, delivery: Delivery) -> None:
        """A transition with a new key that succeeded answers replayed false (or, retried or
        sent at once, possibly a replay of the call that took effect)."""
        if envelopes.ok(answer):
            self.expect(
                REPLAY_RULE[tool],
                self.is_fresh(tool, answer, delivery),
                f"{tool} with a new key: replayed false",
                answer,
            )

    def expect_refusal(
        self, rule: str, code: str, answer: Answer, what: str, order_rule: str | None = None
    ) -> None:
        """A call ``rule`` refuses with ``code``. Given ``order_rule``, its target is one no
        transition can take, so the seed also allows the lifecycle's refusal: ``rule`` holds
        with either, and ``code`` first is this kit's order of checks (``order_rule``)."""
        allowed = (code,) if order_rule is None else (code, *LIFECYCLE_REFUSALS)
        self.expect(
            rule, envelopes.code(answer) in allowed, f"{what}: {' or '.join(allowed)}", answer
        )
        if order_rule is not None:
            self.expect(
                order_rule,
                envelopes.code(answer) == code,
                f"{what}: {code} before the lifecycle",
                answer,
            )

    def expect_refused(
        self, target: str, key: str, rule: str, code: str, answer: Answer, what: str
    ) -> None:
        """A call the lifecycle refuses: ``code``, nothing written, nothing reserved."""
        self.expect(rule, envelopes.code(answer) == code, f"{what}: {code}", answer)
        self.own.refused(target, rule)
        self.refused.append((key, "IDEM-014"))

    def expect_reveals(self, answer: Answer, expected: set[str], what: str) -> None:
        """A search of the owner's scope answers exactly the ``expected`` record ids, each
        once (and perhaps those a duplicate_exact admission named: ``unsettled_records``)."""
        found = record_ids(answer)
        unique = set(found)
        extra = unique - expected - self.own.unsettled_records
        missing = expected - unique
        if envelopes.ok(answer) and not extra and not missing and len(found) == len(unique):
            for held in ("SEARCH-001", "SEARCH-002" if expected else "SEARCH-009"):
                self.driver.passed(held)
            if self.own.forgotten_ids():
                self.driver.passed("LIFE-017")
            for record_id in expected:  # still current: the refused calls on it wrote nothing
                for held in self._refusals(record_id):
                    self.driver.passed(held)
            return
        if not envelopes.ok(answer):
            rule = "SEARCH-002" if expected else "SEARCH-009"
        elif extra or missing:
            rule = self._misrevealed(answer, extra, missing)
        else:  # a record twice: not "exactly once" over the pages (here one)
            rule = "PAGE-002"
        self.expect(rule, False, f"{what}: ok with exactly the records {sorted(expected)}", answer)

    def _misrevealed(self, answer: Answer, extra: set[Any], missing: set[str]) -> str:
        """The rule that ``answer``, returning ``extra`` and missing ``missing``, breaks, the
        seed's first: a tombstoned record returned (LIFE-017); a record the model does not
        hold returned: the refused call that admitted a pending candidate after all (the
        record holds its term), else SEARCH-001; a current record gone (get finds it no
        more): the refused call on it that took it after all, else LIFE-004; else relevance
        (SEARCH-002): a current record missing, or one returned for a term it lacks."""
        records = self.own.records
        if any(r in records and records[r].state is RecordState.TOMBSTONED for r in extra):
            return "LIFE-017"
        unknown = {r for r in extra if r not in records}
        if unknown:
            return self._admitted_by_a_refusal(answer, unknown) or "SEARCH-001"
        for record_id in sorted(missing):
            if not self._gets(record_id):
                return self.own.blame(record_id, "LIFE-004", moved=True)
        return "SEARCH-002"

    def _admitted_by_a_refusal(self, answer: Answer, unknown: set[Any]) -> str | None:
        """The rule of the last refused call on a pending candidate whose term is in the text
        of a returned record the model does not know (that call admitted it after all)."""
        suspects = [
            candidate
            for candidate in self.own.candidates.values()
            if candidate.refusals
            and candidate.state in (CandidateState.PENDING, CandidateState.UNSETTLED)
        ]
        if not suspects:
            return None
        for record_id, packet in zip(
            record_ids(answer), envelopes.value(answer)["records"], strict=True
        ):
            if record_id in unknown:
                text = json.dumps(field(packet, "record"), ensure_ascii=False)
                for candidate in suspects:
                    if candidate.term in text:
                        return candidate.refusals[-1]
        return None

    def _gets(self, record_id: str) -> bool:
        """Whether get answers the owner's ``record_id``."""
        answer = self.get(OWNER, record_id)
        return (
            envelopes.ok(answer)
            and field(envelopes.value(answer), "record").get("record_id") == record_id
        )

    def is_fresh(self, tool: str, answer: Answer, delivery: Delivery) -> bool:
        """The answer to a new key's call: a first result, or, when the call was retried or
        sent several times, possibly a replay of the call that took effect."""
        return says_first(tool, answer) or (delivery != "answered" and says_replay(tool, answer))

    # calls ----------------------------------------------------------------------------------
    def call(
        self,
        tool: str,
        arguments: dict[str, Any],
        *,
        actor: str = OWNER,
        approval: Approval = "valid",
    ) -> Answer:
        return self.driver.call(actor, tool, arguments, approval)

    def mutate(self, tool: str, arguments: dict[str, Any], delivery: Delivery) -> Answer:
        """A mutation of the owner's, delivered as ``delivery`` says: the answer to judge,
        whose other answers agree with it (``deliver``, ``expect_agreement``)."""
        answer, others = self.deliver(tool, arguments, delivery)
        self.expect_agreement(tool, delivery, answer, others)
        return answer

    def deliver(
        self, tool: str, arguments: dict[str, Any], delivery: Delivery
    ) -> tuple[Answer, list[Answer]]:
        """A mutation of the owner's, delivered as ``delivery`` says: the answer to judge (the
        first result, if any), and the other answers of a lost answer's retries, or of
        identical calls sent at once."""
        if delivery == "answered":
            return self.call(tool, arguments), []
        if delivery == "answer lost":
            answer = self.driver.retry_after_lost_answer(OWNER, tool, arguments)
            return answer, [self.call(tool, arguments)]
        answers = self.driver.at_once(OWNER, tool, arguments, AT_ONCE)
        answer = next((a for a in answers if says_first(tool, a)), answers[0])
        return answer, [a for a in answers if a is not answer]

    def expect_agreement(
        self, tool: str, delivery: Delivery, answer: Answer, others: list[Answer]
    ) -> None:
        """The ``others`` answers of one delivery agree with ``answer``: replays of its effect
        (and of its receipt's identity, IDEM-015), or the same refusal."""
        if delivery == "answered":
            return
        agree = all(
            is_replay_of(tool, other, answer)
            if envelopes.ok(answer)
            else envelopes.code(other) == envelopes.code(answer)
            for other in others
        )
        if envelopes.ok(answer):
            agreed = f"one effect {effect(tool, answer)!r}, every other answer a replay of it"
        else:
            agreed = f"every answer the same refusal, {envelopes.code(answer)}"
        self.expect(
            DELIVERY_RULE[delivery], agree, f"{tool} {delivery}: {agreed}", [answer, *others]
        )
        if envelopes.ok(answer) and tool in RECEIPT_TOOLS:
            self.expect(
                RECEIPT_RULE,
                all(repeats_receipt(tool, other, answer) for other in others),
                f"{tool} {delivery}: every replay with the receipt's (event_id, event_digest) "
                f"{receipt_identity(answer)!r}",
                [answer, *others],
            )

    def new_key(self) -> str:
        return f"{self.driver.unique('key')}-idempotency"

    def new_capture(self, key: str) -> tuple[str, dict[str, Any]]:
        """A distinctive term, and capture arguments of a note with it and the example's word."""
        term = self.driver.unique("term")
        return term, self.driver.capture_arguments(OWNER, f"{self.term} {term}", key)

    def transition(self, tool: str, target: str, key: str, reason: str = REASON) -> dict[str, Any]:
        arguments = {TARGET_FIELD[tool]: target, "idempotency_key": key}
        if tool != ADMIT:
            arguments["reason_ref"] = reason
        return arguments

    def search(self, actor: str, query: str, **options: Any) -> Answer:
        arguments = {
            "query": query,
            "purpose_ref": self.driver.purpose(actor),
            "limit": SEARCH_LIMIT,
            "max_packet_bytes": MAX_PACKET_BYTES,
            **options,
        }
        return self.call(SEARCH, arguments, actor=actor)

    def get(self, actor: str, record_id: str) -> Answer:
        arguments = {"record_id": record_id, "purpose_ref": self.driver.purpose(actor)}
        return self.call(GET, arguments, actor=actor)

    def expect_unknown_answer(self, answer: Answer, unknown: Answer, rule: str, what: str) -> None:
        """``answer`` must be the answer to an id nobody issued (``unknown``), auditId aside."""
        self.expect(
            rule,
            comparable(answer) == comparable(unknown),
            f"{what}: the answer to an unknown id, {comparable(unknown)}",
            answer,
        )

    def targeted_tools(self, tools: tuple[str, ...]) -> list[str]:
        """Those of ``tools`` (not capture) that have a target in the scope."""
        return [t for t in tools if t != CAPTURE and (t != FORGET or self.own.records)]

    def draw_target(self, data: st.DataObject, tool: str) -> str:
        """A candidate (a record for forget) of the owner's scope, in any state."""
        targets = self.own.records if tool == FORGET else self.own.candidates
        return data.draw(st.sampled_from(list(targets)), label="target")

    def keys_of(self, *tools: str) -> list[str]:
        """The reserved keys of these tools."""
        reservations = self.model.reservations
        return [k for k in self.keys if reservations[self._identity(k)].tool in tools]
