"""Plays the host for the tests: an Ed25519 key pair, its public PEM, signed invocation contexts.

``Host.meta(tool, ...)`` is the ``_meta`` of a call: ``{"engram/invocation": <compact JWS>}``
with default claims (tenant-a, workspace-a, ..., valid for 60 s) that keyword arguments
override; ``ABSENT`` removes a claim. ``Host.confirmation`` is a human approval of one call.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engram_conformance.conformance.engram_memory.signed_meta import ContextSigner
from engram_conformance.spec.engram_memory import instant, load, operation_digest, wall_clock_ms

META_KEY = "engram/invocation"
TOKEN_TYPE = "engram-invocation+jwt"
PURPOSE = "purpose:conformance-tests"
#: A claim override that removes the claim.
ABSENT = object()


@dataclass
class Host:
    """A host with its own signing key; ``clock`` gives epoch milliseconds."""

    signer: ContextSigner = field(default_factory=ContextSigner)
    clock: Callable[[], int] = wall_clock_ms
    _audit_ids: itertools.count[int] = field(default_factory=itertools.count, repr=False)

    def write_public_key(self, path: Path) -> Path:
        return self.signer.write_public_key(path)

    def claims(self, tool: str, /, **overrides: Any) -> dict[str, Any]:
        """Claims binding one call of ``tool``; ``ttl_s`` sets ``exp - iat`` (default 60)."""
        now_s = self.clock() // 1000
        ttl_s = overrides.pop("ttl_s", 60)
        claims = {
            "tenant": "tenant-a",
            "workspace": "workspace-a",
            "principal": "principal-a",
            "agent_id": "agent-a",
            "session": "session-a",
            "purpose_ref": PURPOSE,
            "audit_id": f"audit-{next(self._audit_ids)}",
            "tool": tool,
            "iat": now_s,
            "exp": now_s + ttl_s,
            **overrides,
        }
        return {name: value for name, value in claims.items() if value is not ABSENT}

    def sign(self, claims: Mapping[str, Any], *, headers: Mapping[str, Any] | None = None) -> str:
        return self.signer.sign(claims, headers=headers)

    def token(self, tool: str, /, **overrides: Any) -> str:
        return self.sign(self.claims(tool, **overrides))

    def meta(self, tool: str, /, **overrides: Any) -> dict[str, Any]:
        return {META_KEY: self.token(tool, **overrides)}

    def confirmation(
        self, tool: str, arguments: dict[str, Any], *, ttl_ms: int = 60_000, **overrides: Any
    ) -> dict[str, Any]:
        """A human approval of exactly this call, given now and valid for ``ttl_ms``."""
        now_ms = self.clock()
        target = load().tools[tool].target
        return {
            "ref": "approval-1",
            "capability": tool,
            "target": arguments.get(target) if target else None,
            "operation_digest": operation_digest(tool, arguments),
            "approved_at": instant(now_ms),
            "expires_at": instant(now_ms + ttl_ms),
            **overrides,
        }
