"""Helpers for the in-process tests of the reference service (no MCP, no subprocess).

``Harness`` wraps one ``MemoryService`` on a temporary state folder with a ``FakeClock``, binds
contexts the way the host would, checks every envelope against the spec's envelope and output
schemas, and offers the few store views the tests need to say what was or was not written.
Test modules build it in a small fixture of their own (this module is not a conftest).
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from engram_conformance.reference_impl.engram_memory.context import Confirmation, InvocationContext
from engram_conformance.reference_impl.engram_memory.policy import HostPolicy
from engram_conformance.reference_impl.engram_memory.service import MemoryService
from engram_conformance.spec.engram_memory import (
    Spec,
    digest,
    instant,
    instant_ms,
    load,
    operation_digest,
)
from engram_conformance.spec.engram_memory.tool_names import (
    ADMIT,
    CAPTURE,
    FORGET,
    GET,
    SEARCH,
    WITHDRAW,
)
from jsonschema import Draft202012Validator

#: The fake clock starts here: 2026-12-01T12:00:00.000Z.
START_MS = instant_ms("2026-12-01T12:00:00.000Z")
DAY_MS = 86_400_000
PURPOSE = "purpose:conformance-tests"
#: A record_id of the right form that no test ever creates.
UNKNOWN_RECORD_ID = "mem_" + "a" * 52
CONTENT_DIGEST = digest({"content": "cited"})
EVIDENCE_DIGEST = digest({"evidence": "reviewed"})


class FakeClock:
    """A clock the tests move by hand; the service reads it as epoch milliseconds."""

    def __init__(self, now_ms: int = START_MS) -> None:
        self.now_ms = now_ms

    def __call__(self) -> int:
        return self.now_ms

    def advance(self, ms: int = 0, *, seconds: float = 0) -> int:
        self.now_ms += ms + int(seconds * 1000)
        return self.now_ms

    def instant(self, offset_ms: int = 0) -> str:
        return instant(self.now_ms + offset_ms)


@dataclass(frozen=True)
class Binding:
    """The host-owned part of a call: who, where, and for what purpose."""

    tenant: str = "tenant-a"
    workspace: str = "workspace-a"
    principal: str = "principal-a"
    agent_id: str = "agent-a"
    session: str = "session-a"
    purpose_ref: str = PURPOSE


SCOPE_A = Binding()
SCOPE_OTHER_TENANT = Binding(tenant="tenant-b")
SCOPE_OTHER_WORKSPACE = Binding(workspace="workspace-b")
OTHER_PRINCIPAL = Binding(principal="principal-b", agent_id="agent-b", session="session-b")


def capture_arguments(
    key: str = "capture-key-0000000001",
    text: str = "Lexical ranking uses SQLite FTS5 BM25, ties broken by record_id.",
    *,
    texts: list[str] | None = None,
    t: int | None = None,
    t_end: int | None = None,
    retention: dict[str, Any] | None = None,
    family_refs: list[str] | None = None,
    attestation: str | None = None,
    source_ref: str = "source:repo/docs/adr/0012.md",
) -> dict[str, Any]:
    """Valid capture arguments; ``texts`` gives one component per text (default: ``[text]``)."""
    texts = texts if texts is not None else [text]
    components = [
        {
            "component_id": f"component:{index}",
            "kind": "decision",
            "text": body,
            "citation_ids": ["citation:1"],
        }
        for index, body in enumerate(texts)
    ]
    valid_time: dict[str, Any] = {"t": START_MS - DAY_MS if t is None else t}
    if t_end is not None:
        valid_time["t_end"] = t_end
    payload: dict[str, Any] = {
        "schema_version": 2,
        "purpose_ref": PURPOSE,
        "valid_time": valid_time,
        "components": components,
        "primary_component_id": "component:0",
        "primary_event": {
            "at": START_MS - DAY_MS,
            "type_ref": "event-type:decision-recorded",
            "citation_id": "citation:1",
        },
        "citations": [
            {
                "citation_id": "citation:1",
                "source_ref": source_ref,
                "locator": {"scheme": "git-path", "value": "docs/adr/0012.md#L1"},
                "content_digest": CONTENT_DIGEST,
            }
        ],
    }
    if retention is not None:
        payload["retention"] = retention
    if family_refs is not None:
        payload["reconciliation"] = {"family_refs": family_refs}
    evidence: dict[str, Any] = {
        "evidence_ref": "evidence:review-1",
        "evidence_digest": EVIDENCE_DIGEST,
        "citation_ids": ["citation:1"],
    }
    if attestation is not None:
        evidence["attestation"] = attestation
    return {"idempotency_key": key, "payload": payload, "evidence": evidence}


def _operation_digest(tool: str, arguments: Any) -> str:
    """The operation digest of a call; arguments that JCS cannot take get a digest of nothing."""
    try:
        return operation_digest(tool, arguments)
    except (ValueError, TypeError, OverflowError):
        return digest(None)


def error_of(envelope: dict[str, Any]) -> dict[str, Any]:
    assert envelope["ok"] is False, envelope
    return envelope["error"]


def value_of(envelope: dict[str, Any]) -> dict[str, Any]:
    assert envelope["ok"] is True, envelope
    return envelope["output"]["value"]


class Harness:
    """One reference service on a private state folder, driven with a fake clock."""

    def __init__(
        self, state_dir: Path, policy: HostPolicy | None = None, clock: FakeClock | None = None
    ) -> None:
        self.state_dir = Path(state_dir)
        self.spec: Spec = load()
        self.clock = clock or FakeClock()
        self.policy = policy or HostPolicy()
        self.service = MemoryService(self.state_dir, self.policy, clock=self.clock)
        self._audit = itertools.count(1)
        self._keys = itertools.count(1)
        self._validators: dict[str, Draft202012Validator] = {}

    def close(self) -> None:
        self.service.close()

    # binding -------------------------------------------------------------------------------
    def key(self, label: str = "key") -> str:
        """A fresh idempotency key (at least 16 bytes)."""
        return f"{label}-{next(self._keys):016d}"

    def context(
        self,
        tool: str,
        binding: Binding = SCOPE_A,
        *,
        confirmation: Confirmation | None = None,
        deadline_ms: int | None = None,
        audit_id: str | None = None,
    ) -> InvocationContext:
        now_s = self.clock() // 1000
        return InvocationContext(
            tenant=binding.tenant,
            workspace=binding.workspace,
            principal=binding.principal,
            agent_id=binding.agent_id,
            session=binding.session,
            purpose_ref=binding.purpose_ref,
            audit_id=audit_id or f"audit-{next(self._audit):06d}",
            tool=tool,
            issued_at_s=now_s,
            expires_at_s=now_s + 300,
            deadline_ms=deadline_ms,
            confirmation=confirmation,
        )

    def confirmation(
        self,
        tool: str,
        arguments: Any,
        *,
        approved_at_ms: int | None = None,
        ttl_ms: int = 300_000,
        **overrides: Any,
    ) -> Confirmation:
        """A confirmation that holds for exactly this call, approved now unless told otherwise."""
        approved = self.clock() if approved_at_ms is None else approved_at_ms
        target_field = self.spec.tools[tool].target
        assert target_field is not None
        confirmation = Confirmation(
            ref="elicitation:test",
            capability=tool,
            target=arguments.get(target_field, "") if isinstance(arguments, dict) else "",
            operation_digest=_operation_digest(tool, arguments),
            approved_at_ms=approved,
            expires_at_ms=approved + ttl_ms,
        )
        return replace(confirmation, **overrides)

    # calls ---------------------------------------------------------------------------------
    def call(
        self,
        tool: str,
        arguments: Any,
        binding: Binding = SCOPE_A,
        *,
        confirm: bool | Confirmation = False,
        deadline_ms: int | None = None,
        audit_id: str | None = None,
    ) -> dict[str, Any]:
        """The envelope of one call, checked against the envelope and output schemas.

        ``confirm=True`` binds a confirmation that holds for this call (withdraw and forget
        always get one unless a ``Confirmation`` is given).
        """
        confirmation: Confirmation | None = None
        if isinstance(confirm, Confirmation):
            confirmation = confirm
        elif confirm or tool in (WITHDRAW, FORGET):
            confirmation = self.confirmation(tool, arguments)
        context = self.context(
            tool, binding, confirmation=confirmation, deadline_ms=deadline_ms, audit_id=audit_id
        )
        sent = copy.deepcopy(arguments)
        envelope = self.service.call(tool, arguments, context)
        assert arguments == sent, "the service changed the caller's arguments"
        self.check_shape(tool, envelope)
        return envelope

    def _validator(self, schema_id: str) -> Draft202012Validator:
        """A plain Draft 2020-12 validator of one spec schema (outputs need no spec keywords)."""
        if schema_id not in self._validators:
            schema = self.spec.schema(schema_id)
            self._validators[schema_id] = Draft202012Validator(schema, registry=self.spec.registry)
        return self._validators[schema_id]

    def check_shape(self, tool: str, envelope: dict[str, Any]) -> None:
        """ENV-001/002/003 and ENV-009 on every answer; ERR-002/003/004/005 on every failure."""
        validator = self._validator(self.spec.contract["envelope_schema"])
        problems = [e.message for e in validator.iter_errors(envelope)]
        assert not problems, problems
        if envelope["ok"]:
            validator = self._validator(self.spec.tools[tool].output_schema)
            problems = [e.message for e in validator.iter_errors(envelope["output"]["value"])]
            assert not problems, (tool, problems)
        else:
            error = envelope["error"]
            catalogued = self.spec.errors[error["code"]]
            assert tool in catalogued.tools, (tool, error["code"])
            assert error["message"] == catalogued.message
            assert error["retriable"] is catalogued.retriable

    def capture(self, arguments: dict[str, Any], binding: Binding = SCOPE_A, **kw: Any) -> Any:
        return self.call(CAPTURE, arguments, binding, **kw)

    def admit(
        self, candidate_id: str, key: str | None = None, binding: Binding = SCOPE_A, **kw: Any
    ) -> dict[str, Any]:
        arguments = {"candidate_id": candidate_id, "idempotency_key": key or self.key("admit")}
        return self.call(ADMIT, arguments, binding, **kw)

    def withdraw(
        self, candidate_id: str, key: str | None = None, binding: Binding = SCOPE_A, **kw: Any
    ) -> dict[str, Any]:
        arguments = {
            "candidate_id": candidate_id,
            "idempotency_key": key or self.key("withdraw"),
            "reason_ref": "reason:no-longer-true",
        }
        return self.call(WITHDRAW, arguments, binding, **kw)

    def forget(
        self, record_id: str, key: str | None = None, binding: Binding = SCOPE_A, **kw: Any
    ) -> dict[str, Any]:
        arguments = {
            "record_id": record_id,
            "idempotency_key": key or self.key("forget"),
            "reason_ref": "reason:no-longer-true",
        }
        return self.call(FORGET, arguments, binding, **kw)

    def get(self, record_id: str, binding: Binding = SCOPE_A, **extra: Any) -> dict[str, Any]:
        return self.call(GET, {"record_id": record_id, "purpose_ref": PURPOSE, **extra}, binding)

    def search(self, query: str, binding: Binding = SCOPE_A, **extra: Any) -> dict[str, Any]:
        return self.call(SEARCH, {"query": query, "purpose_ref": PURPOSE, **extra}, binding)

    # composite steps -----------------------------------------------------------------------
    def pending(self, binding: Binding = SCOPE_A, **capture_kw: Any) -> str:
        """The candidate_id of a fresh committed_pending capture."""
        capture_kw.setdefault("key", self.key("capture"))
        value = value_of(self.capture(capture_arguments(**capture_kw), binding))
        assert value["status"] == "committed_pending"
        return value["candidate_id"]

    def accepted(self, binding: Binding = SCOPE_A, **capture_kw: Any) -> str:
        """The record_id of a fresh capture admitted as accepted."""
        outcome = value_of(self.admit(self.pending(binding, **capture_kw), binding=binding))
        assert outcome["outcome"]["status"] == "accepted", outcome
        return outcome["outcome"]["record_id"]

    def found_ids(self, query: str, binding: Binding = SCOPE_A, **extra: Any) -> list[str]:
        """The record_ids a search answers on its first page, in rank order."""
        packets = value_of(self.search(query, binding, **extra))["records"]
        return [packet["record"]["record_id"] for packet in packets]

    # store views ---------------------------------------------------------------------------
    def rows(self, table: str) -> list[tuple[Any, ...]]:
        connection = self.service.store.connection
        return connection.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall()

    def snapshot(self, *, reservations: bool = True) -> dict[str, list[tuple[Any, ...]]]:
        """Every row the service keeps (idempotency reservations too, unless told otherwise);
        equal snapshots mean a call wrote nothing."""
        indexes = self.service.store.connection.execute(
            "SELECT name FROM sqlite_master WHERE name GLOB 'records_text_[0-9]*'"
            " AND sql LIKE 'CREATE VIRTUAL TABLE%'"
        ).fetchall()
        tables = ["scopes", "events", "candidates", "records", *(name for (name,) in indexes)]
        if reservations:
            tables.append("idempotency")
        return {table: self.rows(table) for table in tables}

    @contextmanager
    def writes_nothing(self, *, but_a_reservation: bool = False) -> Iterator[None]:
        """The block changes no row; ``but_a_reservation``: none but one idempotency row."""
        before = self.snapshot(reservations=not but_a_reservation)
        reserved = len(self.rows("idempotency"))
        yield
        assert self.snapshot(reservations=not but_a_reservation) == before, "the call wrote"
        if but_a_reservation:
            assert len(self.rows("idempotency")) == reserved + 1

    def candidate_state(self, candidate_id: str, binding: Binding = SCOPE_A) -> str | None:
        scope = (binding.tenant, binding.workspace)
        candidate = self.service.store.candidate(scope, candidate_id)
        return None if candidate is None else candidate.state

    def record_state(self, record_id: str, binding: Binding = SCOPE_A) -> str | None:
        stored = self.service.store.record((binding.tenant, binding.workspace), record_id)
        return None if stored is None else stored.state


@contextmanager
def open_harness(
    state_dir: Path, policy: HostPolicy | None = None, clock: FakeClock | None = None
) -> Iterator[Harness]:
    harness = Harness(state_dir, policy, clock)
    try:
        yield harness
    finally:
        harness.close()


def assert_error(spec: Spec, envelope: dict[str, Any], code: str) -> None:
    """A failure envelope of ``code`` with the catalogue's constant message and retriable flag."""
    error = error_of(envelope)
    assert error == {
        "code": code,
        "message": spec.errors[code].message,
        "retriable": spec.errors[code].retriable,
    }, error


def without_audit(envelope: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in envelope.items() if k != "auditId"}
