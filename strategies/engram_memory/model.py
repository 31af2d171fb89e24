"""A model of what a conforming server holds: per scope its candidates and records, and the
idempotency reservations, keyed by (tenant, workspace, principal, key).

Pure data, no I/O: the state machine updates it from the answers it accepts and asks it what the
next answer must be. Each candidate and record also keeps the rules of the refused calls made on
it since its last transition (a conflict, a foreign mutation, a failed gate), so that when a
later answer shows the target left its state all the same, the report names the call that
should have written nothing rather than the call that found out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

Scope = tuple[str, str]
#: (tenant, workspace, principal, idempotency_key)
IdempotencyIdentity = tuple[str, str, str, str]
TARGET_FIELDS = ("candidate_id", "record_id")


class CandidateState(StrEnum):
    PENDING = "pending"
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    WITHDRAWN = "withdrawn"
    #: its first admission answered duplicate_exact, whose meaning the seed leaves unverified:
    #: it may still be pending or not, until a later answer shows which
    UNSETTLED = "unsettled"
    #: unsettled, then refused as no longer pending
    DUPLICATE = "duplicate"


class RecordState(StrEnum):
    CURRENT = "current"
    TOMBSTONED = "tombstoned"


class KeyUse(StrEnum):
    """What reusing an idempotency identity is, against its reservation."""

    FIRST = "first"
    REPLAY = "replay"
    OTHER_TOOL = "other tool"
    OTHER_TARGET = "other target"
    OTHER_CONTENT = "other content"


@dataclass
class Candidate:
    candidate_id: str
    term: str  # the distinctive search term of its content
    state: CandidateState = CandidateState.PENDING
    refusals: list[str] = field(default_factory=list)


@dataclass
class Record:
    record_id: str
    term: str
    state: RecordState = RecordState.CURRENT
    refusals: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Reservation:
    """The first call made with an idempotency identity, and its answer (an ``Answer`` of
    ``answers``: what a replay must answer again is read from it)."""

    tool: str
    arguments: dict[str, Any]
    answer: Any


@dataclass
class ScopeModel:
    candidates: dict[str, Candidate] = field(default_factory=dict)
    records: dict[str, Record] = field(default_factory=dict)
    #: record ids that search may reveal or not: those a duplicate_exact admission named
    unsettled_records: set[str] = field(default_factory=set)

    def captured(self, candidate_id: str, term: str) -> None:
        self.candidates[candidate_id] = Candidate(candidate_id, term)

    def admitted(self, candidate_id: str, status: str, record_id: Any) -> None:
        """The first admission's outcome: pending_adjudication leaves the candidate pending;
        duplicate_exact leaves it unsettled, and a record id it names that the model does not
        hold may be revealed or not."""
        candidate = self.candidates[candidate_id]
        if status == "accepted" and isinstance(record_id, str):
            candidate.state = CandidateState.ACCEPTED
            self.records[record_id] = Record(record_id, candidate.term)
            self.unsettled_records.discard(record_id)
        elif status == "rejected":
            candidate.state = CandidateState.REJECTED
        elif status == "duplicate_exact":
            candidate.state = CandidateState.UNSETTLED
            if isinstance(record_id, str) and record_id not in self.records:
                self.unsettled_records.add(record_id)
        candidate.refusals.clear()

    def settled(self, candidate_id: str, pending: bool) -> None:
        """An unsettled candidate shown pending (a transition took it) or not (refused)."""
        candidate = self.candidates[candidate_id]
        candidate.state = CandidateState.PENDING if pending else CandidateState.DUPLICATE

    def actionable(self, target: str) -> bool:
        """Whether a transition can take ``target``: a pending candidate, a current record."""
        candidate = self.candidates.get(target)
        if candidate is not None:
            return candidate.state is CandidateState.PENDING
        record = self.records.get(target)
        return record is not None and record.state is RecordState.CURRENT

    def withdrawn(self, candidate_id: str) -> None:
        candidate = self.candidates[candidate_id]
        candidate.state = CandidateState.WITHDRAWN
        candidate.refusals.clear()

    def forgotten(self, record_id: str) -> None:
        record = self.records[record_id]
        record.state = RecordState.TOMBSTONED
        record.refusals.clear()

    def refused(self, target: str, rule: str) -> None:
        """A call on ``target`` that must have written nothing, refused under ``rule``."""
        item = self.candidates.get(target) or self.records.get(target)
        if item is not None:
            item.refusals.append(rule)

    def blame(self, target: str, rule: str, moved: bool) -> str:
        """The rule to name when the server disagrees about ``target`` under ``rule``: when
        what it answered shows the target left its state (``moved``), the last refused call on
        it, which must have written nothing; else ``rule``."""
        item = self.candidates.get(target) or self.records.get(target)
        return item.refusals[-1] if moved and item is not None and item.refusals else rule

    def forgotten_ids(self) -> set[str]:
        return {r.record_id for r in self.records.values() if r.state is RecordState.TOMBSTONED}

    def current(self, term: str | None = None) -> set[str]:
        """The record ids search must reveal (those whose content has ``term``, if given)."""
        return {
            record.record_id
            for record in self.records.values()
            if record.state is RecordState.CURRENT and term in (None, record.term)
        }


@dataclass
class MemoryModel:
    scopes: dict[Scope, ScopeModel] = field(default_factory=dict)
    reservations: dict[IdempotencyIdentity, Reservation] = field(default_factory=dict)

    def scope(self, scope: Scope) -> ScopeModel:
        return self.scopes.setdefault(scope, ScopeModel())

    def key_use(
        self, identity: IdempotencyIdentity, tool: str, arguments: dict[str, Any]
    ) -> KeyUse:
        reservation = self.reservations.get(identity)
        if reservation is None:
            return KeyUse.FIRST
        if reservation.tool != tool:
            return KeyUse.OTHER_TOOL
        if reservation.arguments == arguments:
            return KeyUse.REPLAY
        first = reservation.arguments
        if any(first.get(name) != arguments.get(name) for name in TARGET_FIELDS):
            return KeyUse.OTHER_TARGET
        return KeyUse.OTHER_CONTENT

    def reserve(
        self,
        identity: IdempotencyIdentity,
        tool: str,
        arguments: dict[str, Any],
        answer: Any,
    ) -> None:
        self.reservations[identity] = Reservation(tool, arguments, answer)
