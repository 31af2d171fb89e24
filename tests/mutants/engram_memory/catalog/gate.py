"""Servers that break a confirmation-gate rule (GATE): a binding or wiring that takes something
else for the host's approval, a service that checks the approval it is given wrongly, or late;
and a deployment whose descriptor does not say which approvals its server requires."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any, ClassVar

import mcp_types as types
import pytest
from engram_conformance.conformance.engram_memory.settings import Policy
from engram_conformance.reference_impl.engram_memory import gate
from engram_conformance.reference_impl.engram_memory.binding import (
    ContextUnavailable,
    ProtocolRefusal,
    _confirmation,
)
from engram_conformance.reference_impl.engram_memory.context import (
    UNUSABLE_CONFIRMATION,
    Confirmation,
    InvocationContext,
)
from engram_conformance.reference_impl.engram_memory.envelope import failure
from engram_conformance.reference_impl.engram_memory.policy import HostPolicy
from engram_conformance.reference_impl.engram_memory.server import sent_arguments
from engram_conformance.spec.engram_memory import (
    Spec,
    digest,
    instant,
    instant_ms,
    operation_digest,
    validate_arguments,
)

from ...caught import Caught
from ..base import BindingMutant, LetsThrough, ServiceProxy, WiringMutant

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


class TakesConfirmedArgumentAsApproval(WiringMutant):
    """Takes confirmed: true in the arguments for a human approval: the call runs without that
    argument, approved, whatever its context carries (a model's word passes for the host's)."""

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        arguments = sent_arguments(ctx, params)
        if not (isinstance(arguments, dict) and arguments.get("confirmed") is True):
            return await super().call_tool(ctx, params)
        kept = {name: value for name, value in arguments.items() if name != "confirmed"}
        try:
            context = self.binding.context(params.meta)
        except ProtocolRefusal:
            return await super().call_tool(ctx, params)
        if context is None or context.tool != params.name:
            return await super().call_tool(ctx, params)
        approved = replace(
            context, confirmation=_approval(self.spec, params.name, kept, self.binding._clock())
        )
        envelope = await self.calls.run(self._envelope, params.name, kept, approved)
        text = types.TextContent(type="text", text=json.dumps(envelope, ensure_ascii=False))
        return types.CallToolResult(
            content=[text], structured_content=envelope, is_error=not envelope["ok"]
        )


#: An Instant's form with an offset for Z (``TimesInAnyZoneAccepted``).
_ZONED = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d")
#: The one form of a confirmation time (DESIGN: "Confirmation times are Instants").
_INSTANT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


class ReadsConfirmationTimesAlso(BindingMutant):
    """Base: a confirmation the binding refuses only for the form of its times is read anyway
    when ``read_time`` reads each of them (an Instant, or the one other form the mutant takes),
    and then holds like any other."""

    def read_time(self, value: Any) -> int:
        """Epoch milliseconds of ``value``; ValueError or TypeError for a form not taken."""
        raise NotImplementedError

    def verify(self, token: Any) -> InvocationContext:
        context = super().verify(token)
        if context.confirmation != UNUSABLE_CONFIRMATION:
            return context
        claim = self._verified_claims(token).get("confirmation")
        try:
            lenient = Confirmation(
                claim["ref"],
                claim["capability"],
                claim["target"],
                claim["operation_digest"],
                self.read_time(claim["approved_at"]),
                self.read_time(claim["expires_at"]),
            )
        except (KeyError, TypeError, ValueError):
            return context
        return replace(context, confirmation=lenient)


def _instant(value: Any) -> int:
    if isinstance(value, str) and _INSTANT.fullmatch(value):
        return instant_ms(value)
    raise ValueError(f"not an Instant: {value!r}")


class LenientConfirmationTimes(ReadsConfirmationTimesAlso):
    """Reads the confirmation's times with ``datetime.fromisoformat``: forms that are not the
    Instant form (no milliseconds, an offset, a date alone) make an approval that can hold."""

    def read_time(self, value: Any) -> int:
        return int(datetime.fromisoformat(value).timestamp() * 1000)


class TimesWithoutMillisecondsAccepted(ReadsConfirmationTimesAlso):
    """Takes an Instant without its milliseconds (``…T12:00:00Z``), and no other form."""

    def read_time(self, value: Any) -> int:
        if isinstance(value, str) and _INSTANT.fullmatch(value[:-1] + ".000Z"):
            return instant_ms(value[:-1] + ".000Z")
        return _instant(value)


class TimesWithAnOffsetAccepted(ReadsConfirmationTimesAlso):
    """Takes ``+00:00`` for ``Z`` at the end of an Instant, and no other form."""

    def read_time(self, value: Any) -> int:
        if isinstance(value, str) and value.endswith("+00:00"):
            return _instant(value.removesuffix("+00:00") + "Z")
        return _instant(value)


class TimesInAnyZoneAccepted(ReadsConfirmationTimesAlso):
    """Takes an Instant written in any time zone (``…T14:00:00.000+02:00``), and no other form
    (not an offset without milliseconds, nor a date alone)."""

    def read_time(self, value: Any) -> int:
        if isinstance(value, str) and _ZONED.fullmatch(value):
            return int(datetime.fromisoformat(value).timestamp() * 1000)
        return _instant(value)


class TimesInEpochMillisecondsAccepted(ReadsConfirmationTimesAlso):
    """Takes an integer for a time, read as epoch milliseconds."""

    def read_time(self, value: Any) -> int:
        return value if type(value) is int else _instant(value)


class TimesInEpochSecondsAccepted(ReadsConfirmationTimesAlso):
    """Takes an integer for a time, read as epoch seconds."""

    def read_time(self, value: Any) -> int:
        return value * 1000 if type(value) is int else _instant(value)


class TimeInAnArrayAccepted(ReadsConfirmationTimesAlso):
    """Takes an array holding one Instant for that Instant."""

    def read_time(self, value: Any) -> int:
        if isinstance(value, list) and len(value) == 1:
            return _instant(value[0])
        return _instant(value)


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


class NoSkewOnApprovedAt(RewritesApproval):
    """Refuses an approval whose approved_at lies ahead of its clock at all (no 5 s of skew)."""

    def rewrite(
        self, confirmation: Confirmation, tool: str, arguments: Any, now_ms: int
    ) -> Confirmation:
        ahead = confirmation.approved_at_ms > now_ms
        return replace(confirmation, expires_at_ms=now_ms) if ahead else confirmation


class DigestNotCompared(RewritesApproval):
    """Never compares the approval's operation digest with the call's."""

    def rewrite(
        self, confirmation: Confirmation, tool: str, arguments: Any, now_ms: int
    ) -> Confirmation:
        return replace(confirmation, operation_digest=operation_digest(tool, arguments))


class ToolLeftOutOfTheDigest(RewritesApproval):
    """Takes the operation digest of these arguments made for any of the six tools, as if the
    digest covered the arguments alone (and still refuses other arguments')."""

    def rewrite(
        self, confirmation: Confirmation, tool: str, arguments: Any, now_ms: int
    ) -> Confirmation:
        tools = self.inner.spec.tools
        if confirmation.operation_digest in {operation_digest(t, arguments) for t in tools}:
            return replace(confirmation, operation_digest=operation_digest(tool, arguments))
        return confirmation


class TtlCapped(RewritesApproval):
    """Takes an approval meant to live more than 300 s as living 300 s, instead of refusing
    it."""

    def rewrite(
        self, confirmation: Confirmation, tool: str, arguments: Any, now_ms: int
    ) -> Confirmation:
        capped = min(confirmation.expires_at_ms, confirmation.approved_at_ms + 300_000)
        return replace(confirmation, expires_at_ms=capped)


class ExpiryIgnored(RewritesApproval):
    """Never compares expires_at with the clock (the TTL and the 30 s window still hold)."""

    def rewrite(
        self, confirmation: Confirmation, tool: str, arguments: Any, now_ms: int
    ) -> Confirmation:
        return replace(confirmation, expires_at_ms=max(confirmation.expires_at_ms, now_ms + 1))


class FillsAMissingApprovalField(BindingMutant):
    """Base: an approval that lacks ``field``, and is otherwise of the profile's form, gets the
    value ``fill`` makes of the call (and of its other fields), and then holds like any other."""

    field: ClassVar[str]
    fill: ClassVar[Callable[[Spec, str, Any, dict[str, Any], int], Any]]

    def admit_call(self, tool: str, arguments: Any, meta: Any) -> InvocationContext:
        context = super().admit_call(tool, arguments, meta)
        if context.confirmation != UNUSABLE_CONFIRMATION:
            return context
        claims = self._verified_claims(meta[self.meta_key])
        approval = claims.get("confirmation")
        if not isinstance(approval, dict) or self.field in approval:
            return context
        filled = type(self).fill(self.spec, tool, arguments, approval, self._clock())
        completed = {**approval, self.field: filled}
        if any(self._claims_validator.iter_errors({**claims, "confirmation": completed})):
            return context
        return replace(context, confirmation=_confirmation(completed))


def _filled(field: str, name: str, doc: str, fill: Callable[..., Any]) -> type:
    members = {"__doc__": doc, "__module__": __name__, "field": field, "fill": staticmethod(fill)}
    return type(name, (FillsAMissingApprovalField,), members)


#: GATE-006: each field an approval may lack -> a binding that fills it in
MISSING_FIELDS = {
    "ref": _filled(
        "ref", "RefOptional", "Takes an approval without ref.", lambda *_: "approval-without-ref"
    ),
    "capability": _filled(
        "capability",
        "CapabilityDefaultsToTheTool",
        "Takes an approval without capability as one of the tool called.",
        lambda spec, tool, *_: tool,
    ),
    "target": _filled(
        "target",
        "TargetDefaultsToTheCalls",
        "Takes an approval without target as one of the call's target.",
        lambda spec, tool, arguments, *_: arguments.get(spec.tools[tool].target),
    ),
    "operation_digest": _filled(
        "operation_digest",
        "DigestDefaultsToTheCalls",
        "Takes an approval without operation_digest as one of the call's digest.",
        lambda spec, tool, arguments, *_: operation_digest(tool, arguments),
    ),
    "approved_at": _filled(
        "approved_at",
        "ApprovedAtDefaultsToNow",
        "Takes an approval without approved_at as given now.",
        lambda *rest: instant(rest[-1]),
    ),
    "expires_at": _filled(
        "expires_at",
        "ExpiresAtDefaultsToTheFullTtl",
        "Takes an approval without expires_at to live 300 s from approved_at.",
        lambda spec, tool, arguments, approval, now: instant(
            instant_ms(approval["approved_at"]) + 300_000
        ),
    ),
}


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


class GateBeforeDigests(ServiceProxy):
    """Checks the confirmation before the digest forms (after the schema)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        spec, now_ms = self.inner.spec, self.inner.clock()
        verdict = validate_arguments(tool, arguments, clock=None, spec=spec)
        if (
            verdict.code == "INVALID_DIGEST"
            and gate.needs_confirmation(spec, tool, self.inner.policy.confirmation_required)
            and (
                context.confirmation is None
                or not gate.holds(spec, tool, arguments, context.confirmation, now_ms)
            )
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


def admission_approval_undeclared(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A server that requires approval of request_admission while its descriptor says none is
    needed (so the harness admits without one: the checks that need a record cannot decide)."""
    return {
        "server_policy": HostPolicy(confirmation_required=frozenset({ADMIT})),
        "target_policy": Policy(confirmation_required=frozenset()),
    }


#: (mutant, what it breaks), under the default policy: no approval of capture or admission.
MUTANTS: list[tuple[type, Caught]] = [
    (ConfirmationNotRequired, Caught(("GATE-001", "GATE-010"))),
    (
        DigestOfArgumentsAlone,
        Caught(
            ("GATE-002", "GATE-006", "GATE-012"),
            undecided=(
                "GATE-001",
                "GATE-003",
                "GATE-004",
                "GATE-005",
                "GATE-009",
                "GATE-010",
                "GATE-011",
            ),
        ),
    ),
    (CapabilityNotCompared, Caught(("GATE-003",))),
    (TargetNotCompared, Caught(("GATE-003",))),
    (FullTtlAssumed, Caught(("GATE-004",))),
    (ExecutionWindowIgnored, Caught(("GATE-005", "GATE-010", "GATE-011"), undecided=("GATE-012",))),
    (FutureApprovalAccepted, Caught(("GATE-006",))),
    (NoSkewOnApprovedAt, Caught(("GATE-006",))),
    (LenientConfirmationTimes, Caught(("GATE-006",))),
    (TimesWithoutMillisecondsAccepted, Caught(("GATE-006",))),
    (TimesWithAnOffsetAccepted, Caught(("GATE-006",))),
    (TimesInAnyZoneAccepted, Caught(("GATE-006",))),
    (TimesInEpochMillisecondsAccepted, Caught(("GATE-006",))),
    (TimesInEpochSecondsAccepted, Caught(("GATE-006",))),
    (TimeInAnArrayAccepted, Caught(("GATE-006",))),
    (MalformedConfirmationRefused, Caught(("GATE-006",))),
    *(
        (mutant, Caught(("GATE-006",), about={"GATE-006": f"with no {field}:"}))
        for field, mutant in MISSING_FIELDS.items()
    ),
    (DigestNotCompared, Caught(("GATE-003",), about={"GATE-003": "the operation digest of"})),
    (ToolLeftOutOfTheDigest, Caught(("GATE-003",), about={"GATE-003": "call made to"})),
    (TtlCapped, Caught(("GATE-004",), about={"GATE-004": "a TTL of 300.001 s"})),
    (ExpiryIgnored, Caught(("GATE-004",), about={"GATE-004": "expired 10 s ago"})),
    (TakesConfirmedArgumentAsApproval, Caught(("GATE-009",))),
    (ReplaysBeforeTheGate, Caught(("GATE-010",))),
    (GateBeforeSchema, Caught(("GATE-011",))),
    (WritesBeforeGateFailed, Caught(("GATE-012",))),
]
#: The same, with a policy (server's and descriptor's) requiring approval of capture and admission.
MUTANTS_WITH_REQUIRED: list[tuple[type, Caught]] = [
    (GatesOnlyApprovalsSent, Caught(("GATE-007",))),
    (TargetNotCompared, Caught(("GATE-003", "GATE-013"))),
    (WritesBeforeGateFailed, Caught(("GATE-007", "GATE-012"))),
    (GateBeforeDigests, Caught(("GATE-011",))),
]
#: What the undeclared approval breaks, and the rules whose checks it stops from deciding.
ADMISSION_APPROVAL_UNDECLARED = Caught(
    ("GATE-008",),
    undecided=(
        "GATE-001",
        "GATE-002",
        "GATE-003",
        "GATE-004",
        "GATE-005",
        "GATE-006",
        "GATE-009",
        "GATE-010",
        "GATE-011",
        "GATE-012",
    ),
)
