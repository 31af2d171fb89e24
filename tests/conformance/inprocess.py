"""Run the harness against the reference server in this process, optionally through a mutant.

A mutant wraps the reference's ``MemoryService`` or its ``HostBinding``, or answers in place of
its MCP handlers (``wiring_mutant``), and alters one behaviour; the reference's own code carries
no fault switch. ``run_against`` returns the run's
result, whose verdicts the tests read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import anyio
from engram_conformance.conformance.bindings.signed_meta import ContextSigner
from engram_conformance.conformance.checks.registry import REGISTRY, all_checks
from engram_conformance.conformance.host import Host
from engram_conformance.conformance.runner import RunOptions, RunResult, run
from engram_conformance.conformance.targets.descriptor import Policy
from engram_conformance.conformance.targets.launch import InProcessTarget
from engram_conformance.reference_impl.binding import (
    ContextUnavailable,
    HostBinding,
    ProtocolRefusal,
    _context,
)
from engram_conformance.reference_impl.context import InvocationContext
from engram_conformance.reference_impl.policy import HostPolicy
from engram_conformance.reference_impl.server import Handlers, build_server
from engram_conformance.reference_impl.service import MemoryService
from engram_conformance.spec import load

Wrap = Callable[[Any], Any]


def run_against(
    state_dir: Path,
    *,
    service_mutant: Wrap | None = None,
    binding_mutant: Wrap | None = None,
    session_mutant: Wrap | None = None,
    wiring_mutant: type[Handlers] | None = None,
    server_policy: HostPolicy | None = None,
    target_policy: Policy | None = None,
    only: tuple[str, ...] = (),
    profile: str = "quick",
    seed: int = 1,
    recheck: bool = True,
) -> RunResult:
    """The harness's result for the reference (mutated as asked), in-process.

    ``session_mutant`` wraps the service anew for each client (MCP session) the harness opens,
    as a server process of its own would over stdio; it must serialize its calls itself."""
    spec = load()
    signer = ContextSigner(spec)
    service: Any = MemoryService(state_dir, server_policy or HostPolicy(), spec=spec)
    if service_mutant is not None:
        service = service_mutant(service)
    binding: Any = HostBinding(signer.public_key(), spec=spec)
    if binding_mutant is not None:
        binding = binding_mutant(binding)
    # One server for every client, as over HTTP: its handlers serialize the service's calls
    # (one SQLite connection), also those of a check's extra clients.
    server = build_server(service, binding, handlers=wiring_mutant)

    def serve() -> Any:
        if session_mutant is None:
            return server
        return build_server(session_mutant(service), binding, handlers=wiring_mutant)

    target = InProcessTarget("reference-in-process", serve, state_dir)
    host = Host(spec, signer, "t" + state_dir.name[-6:].replace("_", ""))
    options = RunOptions(profile=profile, only=only, seed=seed, recheck=recheck)
    try:
        return anyio.run(run, target, spec, target_policy or Policy(), host, options)
    finally:
        (service.inner if hasattr(service, "inner") else service).close()


@contextmanager
def checks_only(*names: str) -> Iterator[None]:
    """Only the checks ``names`` are registered while the block lasts: a test of one check
    need not run every other check of its rules (the model check takes seconds)."""
    every = all_checks()
    REGISTRY.clear()
    REGISTRY.update({name: every[name] for name in names})
    try:
        yield
    finally:
        REGISTRY.clear()
        REGISTRY.update(every)


def broken_verdict(rule: str) -> str:
    """The verdict of a broken rule: ``fail`` for a must, ``warn`` for should and profile."""
    return "fail" if load().rules[rule].level == "must" else "warn"


def family_verdicts(result: RunResult, family: str) -> dict[str, str]:
    """Rule id -> verdict, for the rules of ``family``."""
    return {
        rule.id: result.verdicts[rule.id].verdict
        for rule in load().rules.values()
        if rule.family == family
    }


def assert_caught(
    verdicts: dict[str, str], broken: tuple[str, ...], undecided: tuple[str, ...] = ()
) -> None:
    """The ``broken`` rules get their broken verdict, the ``undecided`` ones (whose checks the
    mutant stops) ``error``, and every other rule passes or is not applicable."""
    assert {rule: verdicts[rule] for rule in broken} == {r: broken_verdict(r) for r in broken}
    assert {rule: verdicts[rule] for rule in undecided} == dict.fromkeys(undecided, "error")
    others = {rule: v for rule, v in verdicts.items() if rule not in broken + undecided}
    assert set(others.values()) <= {"pass", "not_applicable"}, others


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
