"""The harness plays the host: identities bound to calls, signed contexts, human approvals.

Every check gets identities in a scope (tenant, workspace) of its own, so that checks never see
each other's memory and no server reset is needed.
"""

from __future__ import annotations

import enum
import itertools
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from engram_conformance.spec.engram_memory import Spec, instant, operation_digest, wall_clock_ms

from .signed_meta import ContextSigner


class _Absent(enum.Enum):
    """A claim override that removes the claim from the context. It reads ``absent`` wherever
    a check's evidence names what was sent (``f"tools claim {enabled}"``)."""

    ABSENT = "absent"

    def __str__(self) -> str:
        return self.value

    __repr__ = __str__


ABSENT = _Absent.ABSENT
CONTEXT_TTL_S = 120


@dataclass(frozen=True)
class Identity:
    """Who a call is bound to: the scope and the actor."""

    tenant: str
    workspace: str
    principal: str
    agent_id: str = "agent:conformance"
    session: str = "session:conformance"
    purpose_ref: str = "purpose:conformance"

    def with_principal(self, principal: str) -> Identity:
        return replace(self, principal=principal)


class Host:
    """Makes identities and the per-call context that binds them (signed-meta binding)."""

    def __init__(self, spec: Spec, signer: ContextSigner, run_id: str) -> None:
        self.spec = spec
        self.signer = signer
        self.run_id = run_id
        self._scopes = itertools.count(1)
        self._audits = itertools.count(1)

    def write_public_key(self, path: Path) -> Path:
        """The key the server verifies contexts with, for the descriptor's
        ``{host_public_key_file}``."""
        return self.signer.write_public_key(path)

    def new_identity(self, label: str = "") -> Identity:
        """An identity in a fresh (tenant, workspace) nobody has used."""
        number = next(self._scopes)
        suffix = f"-{label}" if label else ""
        return Identity(
            tenant=f"tenant-{self.run_id}-{number}{suffix}",
            workspace=f"workspace-{number}",
            principal=f"principal-{number}",
        )

    def claims(self, identity: Identity, tool: str, **overrides: Any) -> dict[str, Any]:
        now_s = wall_clock_ms() // 1000
        claims = {
            "tenant": identity.tenant,
            "workspace": identity.workspace,
            "principal": identity.principal,
            "agent_id": identity.agent_id,
            "session": identity.session,
            "purpose_ref": identity.purpose_ref,
            "audit_id": f"audit-{self.run_id}-{next(self._audits)}",
            "tool": tool,
            "iat": now_s,
            "exp": now_s + CONTEXT_TTL_S,
            **overrides,
        }
        return {key: value for key, value in claims.items() if value is not ABSENT}

    def meta(self, claims: dict[str, Any]) -> dict[str, Any]:
        return self.signer.meta(claims)

    def confirmation(
        self,
        tool: str,
        arguments: dict[str, Any],
        *,
        approved_ms: int | None = None,
        ttl_ms: int = 60_000,
        **overrides: Any,
    ) -> dict[str, Any]:
        """A human approval of exactly this call (capability, target, operation digest)."""
        approved = wall_clock_ms() if approved_ms is None else approved_ms
        target_field = self.spec.tools[tool].target
        approval = {
            "ref": f"approval-{self.run_id}-{next(self._audits)}",
            "capability": tool,
            "target": arguments.get(target_field) if target_field else None,
            "operation_digest": operation_digest(tool, arguments),
            "approved_at": instant(approved),
            "expires_at": instant(approved + ttl_ms),
            **overrides,
        }
        return {key: value for key, value in approval.items() if value is not ABSENT}
