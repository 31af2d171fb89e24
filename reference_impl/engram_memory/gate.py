"""The confirmation gate: does the host's human approval hold for this very call?

It holds when it names the called tool (capability) and the call's target, carries the call's
operation digest, lives at most 300 s, has not expired, and the call runs within 30 s of the
approval (5 s of clock skew tolerated on an approval from the future).
"""

from __future__ import annotations

from typing import Any

from engram_conformance.spec.engram_memory import Spec, operation_digest

from .context import Confirmation

TTL_MS = 300_000
EXECUTION_WINDOW_MS = 30_000
SKEW_MS = 5_000


def holds(
    spec: Spec, tool: str, arguments: dict[str, Any], confirmation: Confirmation, now_ms: int
) -> bool:
    target_field = spec.tools[tool].target
    return (
        confirmation.capability == tool
        and target_field is not None
        and confirmation.target == arguments.get(target_field)
        and confirmation.operation_digest == operation_digest(tool, arguments)
        and confirmation.expires_at_ms - confirmation.approved_at_ms <= TTL_MS
        and now_ms < confirmation.expires_at_ms
        and now_ms <= confirmation.approved_at_ms + EXECUTION_WINDOW_MS
        and confirmation.approved_at_ms <= now_ms + SKEW_MS
    )


def needs_confirmation(spec: Spec, tool: str, required_by_host: frozenset[str]) -> bool:
    gate = spec.tools[tool].confirmation
    return gate == "always" or (gate == "host_policy" and tool in required_by_host)
