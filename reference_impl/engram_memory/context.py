"""What the host binds to one call: the verified invocation context and its confirmation.

``binding.py`` builds these from the signed JWS in ``_meta``; the tools read them. Times are
epoch milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Confirmation:
    """A human approval bound to a capability (tool), a target and an operation digest."""

    ref: str
    capability: str
    target: str
    operation_digest: str
    approved_at_ms: int
    expires_at_ms: int


#: What a confirmation claim that is present but malformed (a field missing, a time that is not
#: an Instant) binds: a confirmation, so withdraw and forget pass the protocol checks, that holds
#: for no call, so the gate answers gate_failed.
UNUSABLE_CONFIRMATION = Confirmation("", "", "", "", 0, 0)


@dataclass(frozen=True)
class InvocationContext:
    """The verified claims of one call's signed invocation context."""

    tenant: str
    workspace: str
    principal: str
    agent_id: str
    session: str
    purpose_ref: str
    audit_id: str
    tool: str | None  # None: the claim is absent or not a string (tools/list takes it)
    issued_at_s: int
    expires_at_s: int
    deadline_ms: int | None = None
    cancellation_ref: str | None = None
    tools: frozenset[str] | None = None  # None: all tools enabled
    confirmation: Confirmation | None = None

    @property
    def scope(self) -> tuple[str, str]:
        """Isolation is by (tenant, workspace)."""
        return self.tenant, self.workspace
