"""How a mutant is built, and how a test plants it.

A mutant wraps one part of the reference server and alters one behaviour; the reference's own
code carries no fault switch. The parts, and the base class of each kind:

- its memory service: ``ServiceProxy`` (``ContextProxy`` to bind a call to another context,
  ``InStateFolder`` to keep a file of its own where the harness looks for plaintext);
- its host binding: ``BindingMutant`` (``LetsThrough`` to skip one of its refusals);
- its MCP wiring: ``WiringMutant``, the reference's handlers with one step altered.

A mutant the reference has no seam for is a planting function: given the test's monkeypatch, it
patches the reference's code (or picks the deployment's policies) and returns ``run_against``'s
options. ``plant`` turns any of them into those options.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import pytest
from engram_conformance.reference_impl.engram_memory.binding import (
    ContextUnavailable,
    HostBinding,
    ProtocolRefusal,
    _context,
)
from engram_conformance.reference_impl.engram_memory.context import InvocationContext
from engram_conformance.reference_impl.engram_memory.server import Handlers
from engram_conformance.reference_impl.engram_memory.service import MemoryService

#: A planting function: patches what it must for the test's duration, returns the run's options.
Planting = Callable[[pytest.MonkeyPatch], dict[str, Any]]


class ServiceProxy:
    """Base of service mutants: passes every call to the reference unless a subclass alters it."""

    def __init__(self, inner: MemoryService) -> None:
        self.inner = inner

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        return self.alter(tool, arguments, context, self.inner.call(tool, arguments, context))

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        return envelope

    def close(self) -> None:
        self.inner.close()


class ContextProxy(ServiceProxy):
    """A mutant that binds some calls to another context than the host bound (``rebind``)."""

    def call(self, tool: str, arguments: Any, context: InvocationContext) -> dict[str, Any]:
        rebound = self.rebind(tool, arguments, context)
        return self.alter(tool, arguments, context, self.inner.call(tool, arguments, rebound))

    def rebind(self, tool: str, arguments: Any, context: InvocationContext) -> InvocationContext:
        return context


def in_scope(context: InvocationContext, scope: tuple[str, str]) -> InvocationContext:
    """``context`` bound to another (tenant, workspace)."""
    tenant, workspace = scope
    return replace(context, tenant=tenant, workspace=workspace)


class InStateFolder(ServiceProxy):
    """Base of service mutants that keep a file of their own in the state folder."""

    def __init__(self, inner: MemoryService, state_dir: Path) -> None:
        super().__init__(inner)
        self.state_dir = state_dir


class BindingMutant(HostBinding):
    """Base of binding mutants: the reference binding (same key, spec and clock) in which a
    subclass overrides one step."""

    def __init__(self, inner: HostBinding) -> None:
        vars(self).update(vars(inner))


class LetsThrough(BindingMutant):
    """A binding without one of the reference's checks: it never makes the refusal whose
    reason contains ``skipped``, and goes on with the context as it was verified."""

    skipped: ClassVar[str]

    def verify(self, token: Any) -> InvocationContext:
        try:
            return super().verify(token)
        except ContextUnavailable as refusal:
            if self.skipped not in refusal.reason:
                raise
            claims = self._verified_claims(token)
            return _context(claims, int(claims["iat"]), int(claims["exp"]))

    def admit_call(self, tool: str, arguments: Any, meta: Any) -> InvocationContext:
        try:
            return super().admit_call(tool, arguments, meta)
        except ProtocolRefusal as refusal:
            if self.skipped not in refusal.reason:
                raise
            context = self.context(meta)
            assert context is not None
            return replace(context, tool=tool)


class WiringMutant(Handlers):
    """Base of wiring mutants: the reference's tools/list and tools/call handlers, unless a
    subclass alters one step (``build_server`` builds it in the reference's stead)."""


def plant(
    mutant: type | Planting, monkeypatch: pytest.MonkeyPatch, state_dir: Path
) -> dict[str, Any]:
    """The ``run_against`` options that plant ``mutant`` in a run whose state folder is
    ``state_dir`` (a planting function patches the reference for the test's duration)."""
    if not isinstance(mutant, type):
        return mutant(monkeypatch)
    if issubclass(mutant, WiringMutant):
        return {"wiring_mutant": mutant}
    if issubclass(mutant, HostBinding):
        return {"binding_mutant": mutant}
    if issubclass(mutant, InStateFolder):
        return {"service_mutant": lambda inner: mutant(inner, state_dir)}
    assert issubclass(mutant, ServiceProxy), mutant
    return {"service_mutant": mutant}
