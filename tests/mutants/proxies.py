"""Building blocks of the idempotency and scope mutants, and how their runs are read."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from engram_conformance.conformance.runner import RunResult
from engram_conformance.reference_impl.engram_memory.context import InvocationContext
from engram_conformance.reference_impl.engram_memory.envelope import failure

from ..conformance.inprocess import ServiceProxy, family_verdicts


class ContextProxy(ServiceProxy):
    """A mutant that binds some calls to another context than the host bound (``rebind``)."""

    def call(self, tool: str, arguments: Any, context: InvocationContext) -> dict[str, Any]:
        rebound = self.rebind(tool, arguments, context)
        return self.alter(tool, arguments, context, self.inner.call(tool, arguments, rebound))

    def rebind(self, tool: str, arguments: Any, context: InvocationContext) -> InvocationContext:
        return context


def in_scope(context: InvocationContext, scope: tuple[str, str]) -> InvocationContext:
    tenant, workspace = scope
    return replace(context, tenant=tenant, workspace=workspace)


def refused(proxy: ServiceProxy, code: str, context: InvocationContext) -> dict[str, Any]:
    """The reference's error envelope of ``code`` for this call."""
    return failure(proxy.inner.spec, code, context.audit_id)


def value(envelope: dict[str, Any]) -> dict[str, Any]:
    return envelope["output"]["value"] if envelope["ok"] else {}


def idem_and_scope_verdicts(result: RunResult) -> dict[str, str]:
    """The verdicts of both families, but IDEM-009's: its check waits, so it runs in the full
    profile only (``test_replay_after_expiry_mutant_is_caught``)."""
    verdicts = family_verdicts(result, "IDEM") | family_verdicts(result, "SCOPE")
    return {rule: verdict for rule, verdict in verdicts.items() if rule != "IDEM-009"}
