"""A model of what a conforming server holds: per scope its candidates and records, and the
idempotency reservations, keyed by (tenant, workspace, principal, key).

Pure data, no I/O: the state machine updates it from the answers it accepts and asks it what the
next answer must be. Each candidate and record also keeps the rules of the refused calls made on
it since its last transition (a conflict, a foreign mutation, a failed gate), so that when the
server later disagrees with the model about it, the report names the call that should have
written nothing rather than the call that found out.
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
    ``machine_driver``: what a replay must answer again is read from it)."""

    tool: str
    arguments: dict[str, Any]
    answer: Any


@dataclass
class ScopeModel:
    candidates: dict[str, Candidate] = field(default_factory=dict)
    records: dict[str, Record] = field(default_factory=dict)

    def captured(self, candidate_id: str, term: str) -> None:
        self.candidates[candidate_id] = Candidate(candidate_id, term)

    def admitted(self, candidate_id: str, status: str, record_id: str | None) -> None:
        """The first admission's outcome: pending_adjudication leaves the candidate pending."""
        candidate = self.candidates[candidate_id]
        if status == "accepted" and record_id is not None:
            candidate.state = CandidateState.ACCEPTED
            self.records[record_id] = Record(record_id, candidate.term)
        elif status == "rejected":
            candidate.state = CandidateState.REJECTED
        candidate.refusals.clear()

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

    def blame(self, target: str, rule: str) -> str:
        """The rule to name when the server disagrees about ``target``: the last refused call
        on it (which must have written nothing), else ``rule``."""
        item = self.candidates.get(target) or self.records.get(target)
        return item.refusals[-1] if item is not None and item.refusals else rule

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
