"""Servers that break an idempotency rule (IDEM): replays answered wrongly, keys reserved under
another identity than (scope, principal, key), conflicts taken for replays, checks in the wrong
order, and a race between identical captures."""

from __future__ import annotations

import itertools
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from engram_conformance.reference_impl.engram_memory.context import InvocationContext
from engram_conformance.reference_impl.engram_memory.envelope import success
from engram_conformance.reference_impl.engram_memory.tools.mutation import replay_of
from engram_conformance.spec.engram_memory import check_clock
from engram_conformance.spec.engram_memory.tool_names import CAPTURE, FORGET

from ...caught import Caught
from ..answers import refusal, value
from ..base import ContextProxy, ServiceProxy

TARGETS = ("candidate_id", "record_id")


def identity_of(context: InvocationContext, arguments: Any) -> tuple[Any, ...] | None:
    """The idempotency identity of a mutation (None for a read)."""
    if not isinstance(arguments, dict) or "idempotency_key" not in arguments:
        return None
    return (context.scope, context.principal, arguments["idempotency_key"])


def content(arguments: dict[str, Any]) -> dict[str, Any]:
    """A mutation's arguments without its key and target."""
    return {k: v for k, v in arguments.items() if k not in ("idempotency_key", *TARGETS)}


class ReplayAnswersNewCandidate(ServiceProxy):
    """A capture replay answers duplicate_exact with the id of a candidate made anew."""

    made = itertools.count(1)

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]) -> Any:
        if tool == CAPTURE and value(envelope).get("status") == "duplicate_exact":
            envelope["output"]["value"]["candidate_id"] = f"cand_again{next(self.made)}"
        return envelope


class ReplayedFlagMissing(ServiceProxy):
    """Replays of request_admission, withdraw and forget answer replayed false."""

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]) -> Any:
        if value(envelope).get("replayed") is True:
            envelope["output"]["value"]["replayed"] = False
        return envelope


class ReplayNewEvent(ServiceProxy):
    """Replays of withdraw and forget answer the first receipt's states with an event_id of
    their own, as a server that journals each replay would (IDEM-015 only)."""

    made = itertools.count(1)

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]) -> Any:
        if value(envelope).get("replayed") is True and "receipt" in value(envelope):
            receipt = envelope["output"]["value"]["receipt"]
            receipt["event_id"] = f"{receipt['event_id']}-replay{next(self.made)}"
        return envelope


class LifecycleBeforeReplay(ServiceProxy):
    """The lifecycle is checked before replay detection: the replay of a transition that moved
    its target on answers ILLEGAL_TRANSITION (forget: ALREADY_TERMINAL)."""

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]) -> Any:
        if value(envelope).get("replayed") is True:
            code = "ALREADY_TERMINAL" if tool == FORGET else "ILLEGAL_TRANSITION"
            return refusal(code, context)
        return envelope


class KeyedPerTool(ContextProxy):
    """Keys are reserved per tool: a key reused with another tool is a first call."""

    def rebind(self, tool: str, arguments: Any, context: InvocationContext) -> InvocationContext:
        return replace(context, principal=f"{context.principal}|{self.keyed_with(tool)}")

    def keyed_with(self, tool: str) -> str:
        """The tools whose keys ``tool``'s share (here its own alone)."""
        return tool


class CaptureKeysApart(KeyedPerTool):
    """Capture keys and lifecycle keys are kept in two tables: a capture's key reused to admit
    or withdraw, or an admission's by a capture, is a first call (an admission's key reused to
    forget still conflicts)."""

    def keyed_with(self, tool: str) -> str:
        return "capture" if tool == CAPTURE else "lifecycle"


class RecordKeysApart(KeyedPerTool):
    """Keys of calls on records (forget) are kept apart from those on candidates: an
    admission's key reused to forget is a first call (the others still conflict)."""

    def keyed_with(self, tool: str) -> str:
        return "record" if tool == FORGET else "candidate"


class ConflictAnsweredAsReplay(ServiceProxy):
    """Base: some conflicting reuses of a key answer the key's first result as a replay."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.first: dict[Any, tuple[str, dict[str, Any], dict[str, Any]]] = {}

    def overlooks(self, first: dict[str, Any], again: dict[str, Any]) -> bool:
        raise NotImplementedError

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]) -> Any:
        identity = identity_of(context, arguments)
        if identity is None:
            return envelope
        if envelope["ok"]:
            self.first.setdefault(identity, (tool, arguments, value(envelope)))
        elif envelope["error"]["code"] == "DIGEST_CONFLICT":
            first_tool, first_arguments, first_value = self.first[identity]
            if first_tool == tool and self.overlooks(first_arguments, arguments):
                return success(replay_of(tool, first_value), context.audit_id)
        return envelope


class ContentOverlooked(ConflictAnsweredAsReplay):
    """The key's request digest leaves the content out: the same key and target with another
    payload, evidence or reason_ref is answered as a replay."""

    def overlooks(self, first: dict[str, Any], again: dict[str, Any]) -> bool:
        return all(first.get(name) == again.get(name) for name in TARGETS)


class EvidenceOverlooked(ConflictAnsweredAsReplay):
    """A capture key's request digest covers the payload alone: the same key and payload with
    another evidence is answered as a replay (another payload still conflicts)."""

    def overlooks(self, first: dict[str, Any], again: dict[str, Any]) -> bool:
        return "payload" in first and first["payload"] == again.get("payload")


class ReasonOverlooked(ConflictAnsweredAsReplay):
    """The request digest of withdraw and forget leaves reason_ref out (taken for a note, not
    part of the request): the same key and target with another reason is answered as a
    replay."""

    def overlooks(self, first: dict[str, Any], again: dict[str, Any]) -> bool:
        def besides_reason(arguments: dict[str, Any]) -> dict[str, Any]:
            return {name: v for name, v in arguments.items() if name != "reason_ref"}

        return "reason_ref" in first and besides_reason(first) == besides_reason(again)


class TargetOverlooked(ConflictAnsweredAsReplay):
    """The key's request digest leaves the target out: the same key on another candidate or
    record is answered as a replay."""

    def overlooks(self, first: dict[str, Any], again: dict[str, Any]) -> bool:
        return content(first) == content(again)


class SemanticDeduplication(ServiceProxy):
    """A capture whose content equals an earlier one of the principal, under a new key, answers
    duplicate_exact with the earlier candidate."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.seen: dict[Any, dict[str, Any]] = {}

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]) -> Any:
        if tool != CAPTURE or not envelope["ok"]:
            return envelope
        seen = (context.scope, context.principal, repr(content(arguments)))
        if seen not in self.seen:
            self.seen[seen] = value(envelope)
            return envelope
        return success(replay_of(tool, self.seen[seen]), context.audit_id)


class Reservations:
    """The reference's store, keeping idempotency reservations under another identity."""

    def __init__(self, store: Any, reserved_as: Callable[[Any, str], tuple[Any, str]]) -> None:
        self.store, self.reserved_as = store, reserved_as

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def reservation(self, scope: Any, principal: str, key: str) -> Any:
        return self.store.reservation(*self.reserved_as(scope, principal), key)

    def reserve(self, scope: Any, principal: str, key: str, reservation: Any) -> None:
        self.store.reserve(*self.reserved_as(scope, principal), key, reservation)


class ReservedBy(ServiceProxy):
    """Base: the reservations of the reference's store are kept under ``reserved_as``."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        inner.store = Reservations(inner.store, self.reserved_as)

    def reserved_as(self, scope: Any, principal: str) -> tuple[Any, str]:
        raise NotImplementedError


class KeysWithoutPrincipal(ReservedBy):
    """Keys are reserved per scope: another principal's key is a replay or a conflict."""

    def reserved_as(self, scope: Any, principal: str) -> tuple[Any, str]:
        return scope, "*"


class KeysAcrossScopes(ReservedBy):
    """Keys are reserved per principal name across tenants and workspaces."""

    def reserved_as(self, scope: Any, principal: str) -> tuple[Any, str]:
        return ("*", "*"), principal


class ClockBeforeReplay(ServiceProxy):
    """The clock checks run before replay detection: a capture replayed after its expires_at
    passed answers INVALID_SCHEMA."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        if tool == CAPTURE:
            verdict = check_clock(tool, arguments, self.inner.clock(), spec=self.inner.spec)
            if not verdict.ok:
                return refusal(verdict.code, context)
        return self.inner.call(tool, arguments, context)


class ClockBeforeConflict(ServiceProxy):
    """A reused capture key is compared after the clock checks: other content sent once its
    expires_at passed answers INVALID_SCHEMA instead of DIGEST_CONFLICT (replays still hold)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        answer = self.inner.call(tool, arguments, context)
        if tool == CAPTURE and not answer["ok"] and answer["error"]["code"] == "DIGEST_CONFLICT":
            verdict = check_clock(tool, arguments, self.inner.clock(), spec=self.inner.spec)
            if not verdict.ok:
                return refusal(verdict.code, context)
        return answer


class ForgetClearsCaptureKeys(ContextProxy):
    """Forgetting a record clears the scope's capture keys: the original capture's replay makes
    a new candidate."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.forgets: Counter[Any] = Counter()

    def rebind(self, tool: str, arguments: Any, context: InvocationContext) -> InvocationContext:
        if tool == CAPTURE and self.forgets[context.scope]:
            return replace(context, principal=f"{context.principal}|{self.forgets[context.scope]}")
        return context

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]) -> Any:
        if tool == FORGET and envelope["ok"]:
            self.forgets[context.scope] += 1
        return envelope


class ErrorsReserveKeys(ServiceProxy):
    """A refused mutation keeps its key reserved (the reservation is not rolled back): the
    key's next use with valid arguments conflicts."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.reserved: set[Any] = set()

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        identity = identity_of(context, arguments)
        if identity in self.reserved:
            return refusal("DIGEST_CONFLICT", context)
        envelope = self.inner.call(tool, arguments, context)
        if identity and not envelope["ok"] and envelope["error"]["code"] != "DIGEST_CONFLICT":
            self.reserved.add(identity)
        return envelope


class RacyCaptures(ServiceProxy):
    """Check-then-insert without a lock: a capture reads its key's reservation when it arrives
    and inserts one when it has made the candidate (slowly), so identical captures in flight
    together each make a candidate."""

    races = itertools.count(1)
    MAKING_S = 0.02

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.reserved: set[Any] = set()
        self.read_unreserved: set[str] = set()  # audit ids of captures that found no reservation

    def arrived(self, tool: str, arguments: Any, context: InvocationContext) -> None:
        if tool == CAPTURE and identity_of(context, arguments) not in self.reserved:
            self.read_unreserved.add(context.audit_id)

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        identity = identity_of(context, arguments)
        if tool != CAPTURE:
            return self.inner.call(tool, arguments, context)
        if identity not in self.reserved:
            time.sleep(self.MAKING_S)
        elif context.audit_id in self.read_unreserved:
            context = replace(context, principal=f"{context.principal}|race{next(self.races)}")
        envelope = self.inner.call(tool, arguments, context)
        if envelope["ok"]:
            self.reserved.add(identity)
        return envelope


class ArrivingBinding:
    """The reference's host binding, telling the racy service of each call it admits."""

    def __init__(self, inner: Any, service: RacyCaptures) -> None:
        self.inner, self.service = inner, service

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def admit_call(self, tool: str, arguments: Any, meta: Any) -> InvocationContext:
        context = self.inner.admit_call(tool, arguments, meta)
        self.service.arrived(tool, arguments, context)
        return context


def racy_captures(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The racy service, and the binding that tells it of arrivals (``run_against`` wraps the
    service first)."""
    services: list[RacyCaptures] = []

    def service(inner: Any) -> RacyCaptures:
        services.append(RacyCaptures(inner))
        return services[0]

    return {
        "service_mutant": service,
        "binding_mutant": lambda inner: ArrivingBinding(inner, services[0]),
    }


#: Rules whose checks also replay a call on the way (after a conflict, a retry, a race).
IDEM_REPLAYS = ("IDEM-005", "IDEM-012", "IDEM-013")
#: Test id -> the mutant (a service proxy, or a planting function), and what it breaks: run
#: with the SCOPE rules, as a key is reserved per scope.
MUTANTS: dict[str, tuple[Any, Caught]] = {
    "replay-new-candidate": (
        ReplayAnswersNewCandidate,
        Caught(("IDEM-001", "IDEM-009", "IDEM-011", *IDEM_REPLAYS)),
    ),
    "replayed-flag-missing": (
        ReplayedFlagMissing,
        Caught(("IDEM-003", "IDEM-004", "IDEM-010", *IDEM_REPLAYS)),
    ),
    # No replay of withdraw or forget succeeds, so no receipt identity can be compared (IDEM-015).
    "lifecycle-before-replay": (
        LifecycleBeforeReplay,
        Caught(("IDEM-003", "IDEM-004", "IDEM-010", *IDEM_REPLAYS), undecided=("IDEM-015",)),
    ),
    "replay-new-event": (ReplayNewEvent, Caught(("IDEM-015",))),
    "content-overlooked": (ContentOverlooked, Caught(("IDEM-005", "IDEM-009"))),
    "evidence-overlooked": (
        EvidenceOverlooked,
        Caught(("IDEM-005",), about={"IDEM-005": f"{CAPTURE}: the key again with other"}),
    ),
    "reason-overlooked": (
        ReasonOverlooked,
        Caught(("IDEM-005",), about={"IDEM-005": "the key again with other content"}),
    ),
    "target-overlooked": (TargetOverlooked, Caught(("IDEM-006",))),
    "keyed-per-tool": (KeyedPerTool, Caught(("IDEM-007",))),
    "capture-keys-apart": (CaptureKeysApart, Caught(("IDEM-007",))),
    "record-keys-apart": (RecordKeysApart, Caught(("IDEM-007",))),
    "semantic-deduplication": (SemanticDeduplication, Caught(("IDEM-002",))),
    "keys-without-principal": (KeysWithoutPrincipal, Caught(("IDEM-008",))),
    "keys-across-scopes": (KeysAcrossScopes, Caught(("IDEM-008",))),
    "forget-clears-capture-keys": (ForgetClearsCaptureKeys, Caught(("IDEM-011",))),
    "errors-reserve-keys": (ErrorsReserveKeys, Caught(("IDEM-014",))),
    "racy-captures": (racy_captures, Caught(("IDEM-013",))),
}
#: The mutants of IDEM-009's check that waits (profile full), and what they break.
AFTER_EXPIRY: list[tuple[type, Caught]] = [
    (ClockBeforeReplay, Caught(("IDEM-009",))),
    (ClockBeforeConflict, Caught(("IDEM-009",))),
]
