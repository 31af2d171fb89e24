"""Each confirmation-gate check fires on a server that breaks its rule, and on no unrelated gate
rule; capture and request_admission are also run with a policy that requires their approval."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.conformance.targets.descriptor import Policy
from engram_conformance.reference_impl import gate
from engram_conformance.reference_impl.binding import ContextUnavailable, HostBinding
from engram_conformance.reference_impl.context import (
    UNUSABLE_CONFIRMATION,
    Confirmation,
    InvocationContext,
)
from engram_conformance.reference_impl.envelope import failure
from engram_conformance.reference_impl.policy import HostPolicy
from engram_conformance.spec import Spec, digest, operation_digest

from ..conformance.inprocess import (
    BindingMutant,
    LetsThrough,
    ServiceProxy,
    assert_caught,
    family_verdicts,
    run_against,
)

CAPTURE = "engram_memory_capture"
ADMIT = "engram_memory_request_admission"
WITHDRAW = "engram_memory_withdraw"
FORGET = "engram_memory_forget"
BOTH = frozenset({CAPTURE, ADMIT})


def _approval(spec: Spec, tool: str, arguments: Any, now_ms: int) -> Confirmation:
    """A human approval of exactly this call, given now (what a mutant makes up)."""
    target = arguments.get(spec.tools[tool].target)
    digest_ = operation_digest(tool, arguments)
    return Confirmation("approval-made-up", tool, target, digest_, now_ms, now_ms + 60_000)


class ConfirmationNotRequired(LetsThrough):
    """withdraw and forget without any confirmation reach the service (which answers
    gate_failed) instead of being refused with -32603."""

    skipped = "carries no confirmation"


class TrustsConfirmedArgument(LetsThrough):
    """Takes confirmed: true in the arguments for the approval withdraw and forget need."""

    skipped = "carries no confirmation"

    def admit_call(self, tool: str, arguments: Any, meta: Any) -> InvocationContext:
        if arguments.get("confirmed") is True:
            return super().admit_call(tool, arguments, meta)
        return HostBinding.admit_call(self, tool, arguments, meta)


class MalformedConfirmationRefused(BindingMutant):
    """Refuses a context whose confirmation is malformed with -32603, not gate_failed."""

    def verify(self, token: Any) -> InvocationContext:
        context = super().verify(token)
        if context.confirmation == UNUSABLE_CONFIRMATION:
            raise ContextUnavailable("malformed confirmation")
        return context


class RewritesApproval(ServiceProxy):
    """Base: the service gates a call on ``rewrite(confirmation)``, not on what the host sent."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        if context.confirmation is not None:
            rewritten = self.rewrite(context.confirmation, tool, arguments, self.inner.clock())
            context = replace(context, confirmation=rewritten)
        return super().call(tool, arguments, context)

    def rewrite(
        self, confirmation: Confirmation, tool: str, arguments: Any, now_ms: int
    ) -> Confirmation:
        raise NotImplementedError


class DigestOfArgumentsAlone(RewritesApproval):
    """Expects the operation digest of the arguments alone, not of {tool, arguments}."""

    def rewrite(
        self, confirmation: Confirmation, tool: str, arguments: Any, now_ms: int
    ) -> Confirmation:
        matches = confirmation.operation_digest == digest(arguments)
        bound = operation_digest(tool, arguments) if matches else "sha256:" + "0" * 64
        return replace(confirmation, operation_digest=bound)


class CapabilityNotCompared(RewritesApproval):
    """Never compares the approval's capability with the called tool."""

    def rewrite(
        self, confirmation: Confirmation, tool: str, arguments: Any, now_ms: int
    ) -> Confirmation:
        return replace(confirmation, capability=tool)


class TargetNotCompared(RewritesApproval):
    """Never compares the approval's target with the call's."""

    def rewrite(
        self, confirmation: Confirmation, tool: str, arguments: Any, now_ms: int
    ) -> Confirmation:
        return replace(confirmation, target=arguments.get(self.inner.spec.tools[tool].target))


class FullTtlAssumed(RewritesApproval):
    """Takes every approval to live 300 s from approved_at, whatever its expires_at."""

    def rewrite(
        self, confirmation: Confirmation, tool: str, arguments: Any, now_ms: int
    ) -> Confirmation:
        return replace(confirmation, expires_at_ms=confirmation.approved_at_ms + 300_000)


class ExecutionWindowIgnored(RewritesApproval):
    """Runs an unexpired approval however long ago it was given (no 30 s window)."""

    def rewrite(
        self, confirmation: Confirmation, tool: str, arguments: Any, now_ms: int
    ) -> Confirmation:
        late = now_ms > confirmation.approved_at_ms + 30_000
        return replace(confirmation, approved_at_ms=now_ms) if late else confirmation


class FutureApprovalAccepted(RewritesApproval):
    """Takes an approval from the future as given now (no 5 s skew bound)."""

    def rewrite(
        self, confirmation: Confirmation, tool: str, arguments: Any, now_ms: int
    ) -> Confirmation:
        return replace(confirmation, approved_at_ms=min(confirmation.approved_at_ms, now_ms))


class ReplaysBeforeTheGate(ServiceProxy):
    """Answers a repeated withdraw or forget from a cache, before checking its confirmation."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.answers: dict[str, dict[str, Any]] = {}

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        key = json.dumps([tool, arguments], sort_keys=True)
        if key in self.answers:
            first = self.answers[key]
            value = {**first["output"]["value"], "replayed": True}
            return {
                **first,
                "auditId": context.audit_id,
                "output": {**first["output"], "value": value},
            }
        answer = super().call(tool, arguments, context)
        if answer["ok"] and tool in (WITHDRAW, FORGET):
            self.answers[key] = answer
        return answer


class GateBeforeSchema(ServiceProxy):
    """Checks the confirmation before the arguments."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        spec, now_ms = self.inner.spec, self.inner.clock()
        if gate.needs_confirmation(spec, tool, self.inner.policy.confirmation_required) and (
            context.confirmation is None
            or not gate.holds(spec, tool, arguments, context.confirmation, now_ms)
        ):
            return failure(spec, "gate_failed", context.audit_id)
        return super().call(tool, arguments, context)


class WritesBeforeGateFailed(ServiceProxy):
    """Performs the call, then answers gate_failed when the approval did not hold."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        answer = super().call(tool, arguments, context)
        if not answer["ok"] and answer["error"]["code"] == "gate_failed":
            made_up = _approval(self.inner.spec, tool, arguments, self.inner.clock())
            self.inner.call(tool, arguments, replace(context, confirmation=made_up))
        return answer


class GatesOnlyApprovalsSent(ServiceProxy):
    """Checks an approval of capture or request_admission when one is sent, but lets a call
    without any through."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        if tool in BOTH and context.confirmation is None:
            made_up = _approval(self.inner.spec, tool, arguments, self.inner.clock())
            context = replace(context, confirmation=made_up)
        return super().call(tool, arguments, context)


#: (mutant, the rules it breaks, rules whose checks it stops from deciding: error)
MUTANTS: list[tuple[type, tuple[str, ...], tuple[str, ...]]] = [
    (ConfirmationNotRequired, ("GATE-001", "GATE-009", "GATE-010"), ()),
    (
        DigestOfArgumentsAlone,
        ("GATE-002", "GATE-006", "GATE-012"),
        ("GATE-001", "GATE-003", "GATE-004", "GATE-005", "GATE-010", "GATE-011"),
    ),
    (CapabilityNotCompared, ("GATE-003",), ()),
    (TargetNotCompared, ("GATE-003",), ()),
    (FullTtlAssumed, ("GATE-004",), ()),
    (ExecutionWindowIgnored, ("GATE-005", "GATE-010", "GATE-011"), ("GATE-012",)),
    (FutureApprovalAccepted, ("GATE-006",), ()),
    (MalformedConfirmationRefused, ("GATE-006",), ()),
    (TrustsConfirmedArgument, ("GATE-009",), ()),
    (ReplaysBeforeTheGate, ("GATE-010",), ()),
    (GateBeforeSchema, ("GATE-011",), ()),
    (WritesBeforeGateFailed, ("GATE-012",), ()),
]
#: The same, with a policy (server's and descriptor's) requiring approval of capture and admission.
MUTANTS_WITH_REQUIRED: list[tuple[type, tuple[str, ...], tuple[str, ...]]] = [
    (GatesOnlyApprovalsSent, ("GATE-007",), ()),
    (TargetNotCompared, ("GATE-003", "GATE-013"), ()),
    (WritesBeforeGateFailed, ("GATE-007", "GATE-012"), ()),
]


def _run(
    tmp_path: Path,
    mutant: type | None,
    required: frozenset[str],
    declared: frozenset[str] | None = None,
) -> dict[str, str]:
    """The gate verdicts of a run; the server requires approval of the tools ``required``, the
    descriptor declares it for ``declared`` (default: the same)."""
    kind = "binding_mutant" if mutant and issubclass(mutant, HostBinding) else "service_mutant"
    result = run_against(
        tmp_path,
        only=("GATE",),
        server_policy=HostPolicy(confirmation_required=required),
        target_policy=Policy(confirmation_required=required if declared is None else declared),
        **{kind: mutant},
    )
    return family_verdicts(result, "GATE")


@pytest.mark.parametrize(
    ("mutant", "broken", "undecided"), MUTANTS, ids=[mutant.__name__ for mutant, *_ in MUTANTS]
)
def test_gate_mutant_is_caught(
    tmp_path: Path, mutant: type, broken: tuple[str, ...], undecided: tuple[str, ...]
) -> None:
    assert_caught(_run(tmp_path, mutant, frozenset()), broken, undecided)


@pytest.mark.parametrize(
    ("mutant", "broken", "undecided"),
    MUTANTS_WITH_REQUIRED,
    ids=[mutant.__name__ for mutant, *_ in MUTANTS_WITH_REQUIRED],
)
def test_gate_mutant_is_caught_when_capture_and_admission_need_approval(
    tmp_path: Path, mutant: type, broken: tuple[str, ...], undecided: tuple[str, ...]
) -> None:
    assert_caught(_run(tmp_path, mutant, BOTH), broken, undecided)


def test_gate_mutant_is_caught_when_admission_needs_approval_undeclared(tmp_path: Path) -> None:
    """A server that requires approval of request_admission while its descriptor says none is
    needed (so the harness admits without one: the checks that need a record cannot decide)."""
    verdicts = _run(tmp_path, None, frozenset({ADMIT}), declared=frozenset())
    undecided = ("GATE-001", "GATE-002", "GATE-003", "GATE-004", "GATE-005", "GATE-006")
    assert_caught(verdicts, ("GATE-008",), (*undecided, "GATE-010", "GATE-011", "GATE-012"))


@pytest.mark.parametrize(
    ("required", "unreachable"),
    [
        (frozenset(), {"GATE-007", "GATE-013"}),
        (frozenset({CAPTURE}), set()),
        (BOTH, {"GATE-008"}),
    ],
    ids=["default policy", "capture required", "both required"],
)
def test_reference_passes_every_gate_rule(
    tmp_path: Path, required: frozenset[str], unreachable: set[str]
) -> None:
    verdicts = _run(tmp_path, None, required)
    assert {rule: v for rule, v in verdicts.items() if v != "pass"} == dict.fromkeys(
        unreachable, "not_applicable"
    )
