"""The lifecycle state machine: Hypothesis drives any server through a ``Driver`` and compares
every answer with the model of ``strategies.model``.

Each example starts with ``Driver.begin`` (a fresh tenant and workspace, so no server reset), and
every step is one rule: capture, request_admission, withdraw, forget, search, get, reuses of
earlier idempotency keys (replays and conflicts), the confirmation gate, and the same calls from
another tenant and another workspace on the owner's ids. After every step the owner's scope must
reveal exactly the model's current records.

A broken expectation raises a ``Violation`` of its rule (one exception class per rule, so that
Hypothesis shrinks each broken rule as a bug of its own) after telling the driver, which keeps
the steps and calls of the example. The driver is synchronous: the harness bridges it to its
async session.
"""

from __future__ import annotations

from functools import cache
from typing import Any, ClassVar, Literal, Protocol

from engram_conformance.spec.tool_names import ADMIT, CAPTURE, FORGET, GET, SEARCH, WITHDRAW
from hypothesis import reject
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    multiple,
    precondition,
    rule,
)

from .model import CandidateState, KeyUse, MemoryModel, RecordState, ScopeModel

Approval = Literal["valid", "absent", "other_target", "other_operation"]
#: Confirmations that do not hold: none, or one for another target or another operation.
UNHELD: tuple[Approval, ...] = ("absent", "other_target", "other_operation")
OWNER = "owner"
FOREIGN_ACTORS = ("another tenant", "another workspace")
ACTORS = (OWNER, *FOREIGN_ACTORS)

REASON = "reason:model"
OTHER_REASON = "reason:model-other"
#: A record_id of the contract's pattern that no server issued (32 zero bytes in base32).
UNKNOWN_RECORD = "mem_" + "a" * 52
SEARCH_LIMIT = 50  # the schema's maximum; an example makes fewer records than this
MAX_PACKET_BYTES = 1_048_576
DECISIONS = ("accepted", "rejected", "pending_adjudication")
RECEIPT_FIELDS = ("event_id", "event_digest", "from_state", "to_state")
TARGET_FIELD = {ADMIT: "candidate_id", WITHDRAW: "candidate_id", FORGET: "record_id"}
CONTEXT_UNAVAILABLE = -32603

REPLAY_RULE = {CAPTURE: "IDEM-001", ADMIT: "IDEM-003", WITHDRAW: "IDEM-004", FORGET: "IDEM-004"}
CONFLICT_RULE = {
    KeyUse.OTHER_CONTENT: "IDEM-005",
    KeyUse.OTHER_TARGET: "IDEM-006",
    KeyUse.OTHER_TOOL: "IDEM-007",
}
#: Every rule the machine decides.
RULES = (
    "IDEM-001",
    "IDEM-003",
    "IDEM-004",
    "IDEM-005",
    "IDEM-006",
    "IDEM-007",
    "IDEM-014",
    "SCOPE-001",
    "SCOPE-003",
    "SCOPE-004",
    "SCOPE-005",
    "SCOPE-006",
    "SEARCH-001",
    "SEARCH-002",
    "SEARCH-009",
    "LIFE-001",
    "LIFE-003",
    "LIFE-004",
    "LIFE-012",
    "LIFE-013",
    "LIFE-014",
    "LIFE-016",
    "LIFE-017",
    "GATE-001",
    "GATE-003",
    "GATE-012",
)


class Answer(Protocol):
    """What the machine reads of an answer (the harness's ``Observation`` is one)."""

    @property
    def ok(self) -> bool: ...
    @property
    def value(self) -> dict[str, Any]: ...
    @property
    def code(self) -> str | int | None: ...
    @property
    def envelope(self) -> dict[str, Any] | None: ...


class Driver(Protocol):
    def begin(self) -> dict[str, tuple[str, str, str]] | None:
        """Fresh identities for a new example, actor -> (tenant, workspace, principal), for
        every actor of ``ACTORS``; None when no example may start (the time is up)."""

    def unique(self, label: str) -> str:
        """A token nobody used (also a distinctive search term)."""

    def capture_arguments(self, actor: str, text: str, key: str) -> dict[str, Any]:
        """Valid capture arguments whose content is ``text``, current now."""

    def purpose(self, actor: str) -> str:
        """The purpose_ref bound to ``actor``'s calls."""

    def call(self, actor: str, tool: str, arguments: dict[str, Any], approval: Approval) -> Answer:
        """One call bound to ``actor``. withdraw and forget carry a confirmation as
        ``approval`` says: one that holds, none, or one for another target or operation."""

    def step(self, description: str) -> None:
        """The example's next step begins."""

    def passed(self, rule: str) -> None:
        """An expectation of ``rule`` held."""

    def violated(self, rule: str, expected: str, observed: Any) -> None:
        """An expectation of ``rule`` broke (a ``Violation`` is raised next)."""


class Violation(AssertionError):
    """An expectation of ``rule`` broke."""

    rule: ClassVar[str] = ""


@cache
def violation_of(rule: str) -> type[Violation]:
    return type(f"Violation_{rule.replace('-', '_')}", (Violation,), {"rule": rule})


def effect(tool: str, value: dict[str, Any]) -> Any:
    """What a replay of an answer whose output value is ``value`` must answer again."""
    if tool == CAPTURE:
        return value.get("candidate_id")
    if tool == ADMIT:
        outcome = _object(value, "outcome")
        return tuple(outcome.get(name) for name in ("status", "candidate_id", "record_id"))
    return tuple(_object(value, "receipt").get(name) for name in RECEIPT_FIELDS)


def comparable(answer: Answer) -> Any:
    """The answer with its auditId left out (the one field allowed to differ)."""
    if answer.envelope is None:
        return ("not an envelope", answer.code)
    return {name: value for name, value in answer.envelope.items() if name != "auditId"}


def record_ids(answer: Answer) -> list[Any]:
    packets = answer.value.get("records")
    return [_object(p, "record").get("record_id") for p in packets or []]


def _object(value: Any, name: str) -> dict[str, Any]:
    item = value.get(name) if isinstance(value, dict) else None
    return item if isinstance(item, dict) else {}


class LifecycleMachine(RuleBasedStateMachine):
    driver: ClassVar[Driver]
    candidates = Bundle("candidates")
    records = Bundle("records")

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

    # the model of the owner's scope -------------------------------------------------------
    @property
    def own(self) -> ScopeModel:
        tenant, workspace, _ = self.identities[OWNER]
        return self.model.scope((tenant, workspace))

    def _identity(self, key: str) -> tuple[str, str, str, str]:
        return (*self.identities[OWNER], key)

    def reserve(self, tool: str, arguments: dict[str, Any], answer: Answer) -> None:
        key = arguments["idempotency_key"]
        self.model.reserve(self._identity(key), tool, arguments, answer.value)
        self.keys.append(key)

    # expectations ---------------------------------------------------------------------------
    def expect(self, rule: str, ok: bool, expected: str, observed: Any) -> None:
        if ok:
            self.driver.passed(rule)
            return
        self.driver.violated(rule, expected, observed)
        raise violation_of(rule)(f"{rule}: {expected}")

    def expect_on(self, target: str, rule: str, ok: bool, expected: str, observed: Any) -> None:
        """An expectation about ``target`` under ``rule``: when it holds, the refused calls
        made on the target since its last transition wrote nothing either; when it breaks,
        the last of them is to blame (``ScopeModel.blame``)."""
        refusals = self._refusals(target)
        if ok:
            for held in {rule, *refusals}:
                self.driver.passed(held)
            return
        self.expect(self.own.blame(target, rule), False, expected, observed)

    def _refusals(self, target: str) -> list[str]:
        item = self.own.candidates.get(target) or self.own.records.get(target)
        return list(item.refusals) if item is not None else []

    def expect_replay(self, tool: str, first: dict[str, Any], answer: Answer) -> None:
        said_replay = (
            answer.value.get("status") == "duplicate_exact"
            if tool == CAPTURE
            else answer.value.get("replayed") is True
        )
        self.expect(
            REPLAY_RULE[tool],
            answer.ok and said_replay and effect(tool, answer.value) == effect(tool, first),
            f"{tool} replay: the first call's effect {effect(tool, first)!r}, as a replay",
            answer,
        )

    def expect_refused(
        self, target: str, key: str, rule: str, code: str, answer: Answer, what: str
    ) -> None:
        """A call the lifecycle refuses: ``code``, nothing written, nothing reserved."""
        self.expect(rule, answer.code == code, f"{what}: {code}", answer)
        self.own.refused(target, rule)
        self.refused.append((key, "IDEM-014"))

    def expect_reveals(self, answer: Answer, expected: set[str], what: str) -> None:
        """A search of the owner's scope answers exactly the ``expected`` record ids."""
        found = record_ids(answer)
        wrong = sorted(set(found) ^ expected, key=str)
        if answer.ok and not wrong and len(found) == len(set(found)):
            for held in ("SEARCH-001", "SEARCH-002" if expected else "SEARCH-009"):
                self.driver.passed(held)
            if self.own.forgotten_ids():
                self.driver.passed("LIFE-017")
            for record_id in expected:  # still current: the refused calls on it wrote nothing
                for held in self._refusals(record_id):
                    self.driver.passed(held)
            return
        if not answer.ok:
            rule = "SEARCH-002" if expected else "SEARCH-009"
        else:
            rule = self._misrevealed(wrong, found) if wrong else "SEARCH-001"
        self.expect(rule, False, f"{what}: ok with exactly the records {sorted(expected)}", answer)

    def _misrevealed(self, wrong: list[Any], found: list[Any]) -> str:
        """The rule a wrongly returned or missing record breaks."""
        for record_id in wrong:
            record = self.own.records.get(record_id)
            if record_id in found and record is not None:
                return "LIFE-017" if record.state is RecordState.TOMBSTONED else "SEARCH-001"
        record_id = wrong[0]
        present = record_id in found
        return self.own.blame(record_id, "SEARCH-001" if present else "SEARCH-002")

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

    def search(self, actor: str, query: str) -> Answer:
        arguments = {
            "query": query,
            "purpose_ref": self.driver.purpose(actor),
            "limit": SEARCH_LIMIT,
            "max_packet_bytes": MAX_PACKET_BYTES,
        }
        return self.call(SEARCH, arguments, actor=actor)

    def get(self, actor: str, record_id: str) -> Answer:
        arguments = {"record_id": record_id, "purpose_ref": self.driver.purpose(actor)}
        return self.call(GET, arguments, actor=actor)

    def first_capture(self, key: str, rule: str) -> str:
        term, arguments = self.new_capture(key)
        answer = self.call(CAPTURE, arguments)
        candidate = answer.value.get("candidate_id")
        self.expect(
            rule,
            answer.ok
            and answer.value.get("status") == "committed_pending"
            and isinstance(candidate, str)
            and candidate not in self.own.candidates,
            "a first capture: committed_pending with a candidate_id never answered before",
            answer,
        )
        self.own.captured(candidate, term)
        self.reserve(CAPTURE, arguments, answer)
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
        rule = CONFLICT_RULE[use]
        self.expect(
            rule,
            answer.code == "DIGEST_CONFLICT",
            f"{tool} with the key of a {first.tool} ({use}): DIGEST_CONFLICT",
            answer,
        )
        target = arguments.get(TARGET_FIELD.get(tool, ""))
        if target is not None:
            self.own.refused(target, rule)

    def targeted_tools(self, tools: tuple[str, ...]) -> list[str]:
        """Those of ``tools`` (not capture) that have a target in the scope."""
        return [t for t in tools if t != CAPTURE and (t != FORGET or self.own.records)]

    def draw_target(self, data: st.DataObject, tool: str) -> str:
        """A candidate (a record for forget) of the owner's scope, in any state."""
        targets = self.own.records if tool == FORGET else self.own.candidates
        return data.draw(st.sampled_from(list(targets)), label="target")

    # rules ----------------------------------------------------------------------------------
    @rule(target=candidates)
    def capture(self) -> str:
        self.driver.step("capture a new note")
        return self.first_capture(self.new_key(), "LIFE-001")

    @precondition(lambda self: self.refused)
    @rule(target=candidates, data=st.data())
    def capture_with_a_refused_key(self, data: st.DataObject) -> str:
        """A key whose first call was refused reserved nothing: a capture with it is a first."""
        key, rule_ = data.draw(st.sampled_from(self.refused), label="refused key")
        self.driver.step(f"capture a new note with the refused key {key}")
        self.refused.remove((key, rule_))
        return self.first_capture(key, rule_)

    @precondition(lambda self: self.keys)
    @rule(data=st.data())
    def replay(self, data: st.DataObject) -> None:
        key = data.draw(st.sampled_from(self.keys), label="key")
        first = self.model.reservations[self._identity(key)]
        self.driver.step(f"replay the {first.tool} of key {key}")
        self.expect_replay(first.tool, first.answer, self.call(first.tool, first.arguments))

    @precondition(lambda self: self.keys)
    @rule(data=st.data())
    def reuse_a_key(self, data: st.DataObject) -> None:
        """An earlier key in another call: a capture of other content, or a transition of a
        target of the scope, with its reason_ref or another. The model says which is the
        first call again (a replay) and which a conflict (other tool, target or content)."""
        key = data.draw(st.sampled_from(self.keys), label="key")
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

    @precondition(lambda self: self._keys_of(ADMIT, WITHDRAW, FORGET))
    @rule(data=st.data())
    def transition_again_with_its_key(self, data: st.DataObject) -> None:
        """A transition's key with the same tool on a target of the scope: the first call's
        own target is a replay, any other a conflict (IDEM-006)."""
        key = data.draw(st.sampled_from(self._keys_of(ADMIT, WITHDRAW, FORGET)), label="key")
        first = self.model.reservations[self._identity(key)]
        target = self.draw_target(data, first.tool)
        self.driver.step(f"{first.tool} {target} with the key {key} of that tool")
        self.reuse(key, first.tool, self.transition(first.tool, target, key))

    def _keys_of(self, *tools: str) -> list[str]:
        """The reserved keys of these tools."""
        reservations = self.model.reservations
        return [k for k in self.keys if reservations[self._identity(k)].tool in tools]

    def admission(self, candidate: str) -> Any:
        """Request admission of ``candidate`` with a new key: its record id, if accepted."""
        key = self.new_key()
        arguments = self.transition(ADMIT, candidate, key)
        answer = self.call(ADMIT, arguments)
        state = self.own.candidates[candidate].state
        if state is not CandidateState.PENDING:
            what = f"admission of a {state} candidate"
            self.expect_refused(candidate, key, "LIFE-012", "ILLEGAL_TRANSITION", answer, what)
            return multiple()
        outcome = _object(answer.value, "outcome")
        status, record = outcome.get("status"), outcome.get("record_id")
        accepted = status == "accepted"
        self.expect_on(
            candidate,
            "LIFE-003",
            answer.ok
            and answer.value.get("replayed") is False
            and outcome.get("candidate_id") == candidate
            and status in DECISIONS
            and (not accepted or (isinstance(record, str) and record not in self.own.records)),
            f"a first admission of the pending {candidate}: a decision on it, replayed false",
            answer,
        )
        self.own.admitted(candidate, status, record if accepted else None)
        self.reserve(ADMIT, arguments, answer)
        return record if accepted else multiple()

    @initialize(target=records)
    def admitted_record(self) -> Any:
        """Every example starts with one admitted capture, so that records are there to act on."""
        self.driver.step("capture a new note and request its admission")
        return self.admission(self.first_capture(self.new_key(), "LIFE-001"))

    @rule(target=records, candidate=candidates)
    def admit(self, candidate: str) -> Any:
        self.driver.step(f"request admission of {candidate}")
        return self.admission(candidate)

    @rule(candidate=candidates)
    def withdraw(self, candidate: str) -> None:
        self.driver.step(f"withdraw {candidate}")
        key = self.new_key()
        arguments = self.transition(WITHDRAW, candidate, key)
        answer = self.call(WITHDRAW, arguments)
        state = self.own.candidates[candidate].state
        if state is not CandidateState.PENDING:
            what = f"withdraw of a {state} candidate"
            self.expect_refused(candidate, key, "LIFE-012", "ILLEGAL_TRANSITION", answer, what)
            return
        receipt = _object(answer.value, "receipt")
        self.expect_on(
            candidate,
            "LIFE-013",
            answer.ok
            and answer.value.get("replayed") is False
            and (receipt.get("from_state"), receipt.get("to_state")) == ("pending", "withdrawn"),
            f"withdraw of the pending {candidate}: a receipt from pending to withdrawn",
            answer,
        )
        self.own.withdrawn(candidate)
        self.reserve(WITHDRAW, arguments, answer)

    @rule(record=records)
    def forget(self, record: str) -> None:
        self.driver.step(f"forget {record}")
        key = self.new_key()
        arguments = self.transition(FORGET, record, key)
        answer = self.call(FORGET, arguments)
        if self.own.records[record].state is RecordState.TOMBSTONED:
            what = "forget of a tombstoned record"
            self.expect_refused(record, key, "LIFE-016", "ALREADY_TERMINAL", answer, what)
            return
        receipt = _object(answer.value, "receipt")
        self.expect_on(
            record,
            "LIFE-014",
            answer.ok
            and answer.value.get("replayed") is False
            and receipt.get("to_state") == "tombstoned",
            f"forget of the current {record}: a receipt to tombstoned",
            answer,
        )
        self.own.forgotten(record)
        self.reserve(FORGET, arguments, answer)

    @rule(approval=st.sampled_from(UNHELD), data=st.data())
    def unconfirmed(self, approval: Approval, data: st.DataObject) -> None:
        """withdraw or forget without a confirmation that holds: refused, nothing written."""
        tool = data.draw(st.sampled_from(self.targeted_tools((WITHDRAW, FORGET))), label="tool")
        target = self.draw_target(data, tool)
        self.driver.step(f"{tool} {target} with {approval.replace('_', ' ')} confirmation")
        key = self.new_key()
        answer = self.call(tool, self.transition(tool, target, key), approval=approval)
        if approval == "absent":
            self.expect(
                "GATE-001",
                answer.code == CONTEXT_UNAVAILABLE,
                f"{tool} without a confirmation: JSON-RPC error {CONTEXT_UNAVAILABLE}",
                answer,
            )
            self.own.refused(target, "GATE-001")
            return
        self.expect(
            "GATE-003",
            answer.code == "gate_failed",
            f"{tool} under a confirmation of {approval.replace('_', ' ')}: gate_failed",
            answer,
        )
        self.own.refused(target, "GATE-012")
        self.refused.append((key, "GATE-012"))

    @rule(record=records)
    def search_its_term(self, record: str) -> None:
        term = self.own.records[record].term
        self.driver.step(f"search the term of {record}")
        self.expect_reveals(self.search(OWNER, term), self.own.current(term), f"search {term}")

    @rule(record=records)
    def get_record(self, record: str) -> None:
        self.driver.step(f"get {record}")
        answer = self.get(OWNER, record)
        if self.own.records[record].state is RecordState.CURRENT:
            self.expect_on(
                record,
                "LIFE-004",
                answer.ok and _object(answer.value, "record").get("record_id") == record,
                f"get of the current {record}: the record",
                answer,
            )
            return
        unknown = self.get(OWNER, UNKNOWN_RECORD)
        self.expect("LIFE-017", not answer.ok, f"get of the forgotten {record}: NOT_FOUND", answer)
        self.expect(
            "SCOPE-004",
            comparable(answer) == comparable(unknown),
            f"get of the forgotten {record}: the answer to an unknown id, {comparable(unknown)}",
            answer,
        )

    @rule(record=records, actor=st.sampled_from(FOREIGN_ACTORS))
    def foreign_read(self, record: str, actor: str) -> None:
        self.driver.step(f"search and get {record} from {actor}")
        found = self.search(actor, self.term)
        self.expect(
            "SCOPE-001",
            found.ok and record_ids(found) == [],
            f"search from {actor}: ok with none of the owner's records",
            found,
        )
        answer, unknown = self.get(actor, record), self.get(actor, UNKNOWN_RECORD)
        self.expect("SCOPE-001", not answer.ok, f"get of {record} from {actor}: NOT_FOUND", answer)
        self.expect(
            "SCOPE-004",
            comparable(answer) == comparable(unknown),
            f"get of {record} from {actor}: the answer to an unknown id, {comparable(unknown)}",
            answer,
        )

    @rule(actor=st.sampled_from(FOREIGN_ACTORS), data=st.data())
    def foreign_transition(self, actor: str, data: st.DataObject) -> None:
        """``actor`` of another scope acts on the owner's target: the answer to an unknown id
        (compared with one to an id nobody issued), and nothing written."""
        tool = data.draw(st.sampled_from(self.targeted_tools((ADMIT, WITHDRAW, FORGET))))
        target = self.draw_target(data, tool)
        self.driver.step(f"{tool} {target} from {actor}")
        unknown = UNKNOWN_RECORD if tool == FORGET else self.driver.unique("unknowncandidate")
        answer = self.call(tool, self.transition(tool, target, self.new_key()), actor=actor)
        baseline = self.call(tool, self.transition(tool, unknown, self.new_key()), actor=actor)
        what = f"{tool} from {actor} of the owner's {target}"
        self.expect("SCOPE-003", answer.code == "NOT_FOUND", f"{what}: NOT_FOUND", answer)
        self.expect(
            "SCOPE-005",
            comparable(answer) == comparable(baseline),
            f"{what}: the answer to an unknown id, {comparable(baseline)}",
            answer,
        )
        self.own.refused(target, "SCOPE-006")

    @invariant()
    def scope_reveals_exactly_its_current_records(self) -> None:
        answer = self.search(OWNER, self.term)
        self.expect_reveals(answer, self.own.current(), "search of the example's word")


def lifecycle_machine(driver: Driver) -> type[LifecycleMachine]:
    """The machine class, bound to ``driver``."""
    return type("LifecycleMachine", (LifecycleMachine,), {"driver": driver})
