"""Each host-binding check fires on a server that breaks its rule, and on no unrelated host rule."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import jwt
import mcp_types as types
import pytest
from engram_conformance.reference_impl.binding import (
    ContextUnavailable,
    HostBinding,
    UnknownTool,
    sent_purpose,
)
from engram_conformance.reference_impl.context import InvocationContext
from engram_conformance.reference_impl.envelope import failure
from engram_conformance.spec import load, validate_arguments

from ..conformance.inprocess import (
    BindingMutant,
    LetsThrough,
    ServiceProxy,
    assert_caught,
    family_verdicts,
    run_against,
)
from .wiring import WiringMutant, plant


class FallsBackToAnonymousContext(BindingMutant):
    """A call without a context runs under a default binding instead of being refused."""

    def admit_call(self, tool: str, arguments: Any, meta: Any) -> InvocationContext:
        if tool in self.spec.tools and self.context(meta) is None:
            default = ("default", "default", "anonymous", "agent", "session", "purpose:default")
            return InvocationContext(*default, "audit-default", tool, 0, 2**31)
        return super().admit_call(tool, arguments, meta)


class SignatureNotVerified(BindingMutant):
    """Reads the JWS payload without verifying the signature (nor the header)."""

    def _verified_claims(self, token: Any) -> dict[str, Any]:
        try:
            jws = self._jws.decode_complete(token, options={"verify_signature": False})
            return json.loads(jws["payload"])
        except (jwt.PyJWTError, ValueError) as error:
            raise ContextUnavailable("not a JWS") from error


class TypNotChecked(BindingMutant):
    """Checks the JWS alg, not its typ header."""

    def __init__(self, inner: HostBinding) -> None:
        super().__init__(inner)
        self._header = {"alg": inner._header["alg"]}


class AcceptsExpiredContexts(LetsThrough):
    """Never compares exp with the clock."""

    skipped = "has expired"


class AcceptsLongLivedContexts(LetsThrough):
    """Lets a context live longer than 300 s."""

    skipped = "live more than"


class AcceptsContextsFromTheFuture(LetsThrough):
    """Takes any iat, however far ahead of the clock."""

    skipped = "issued in the future"


class AgentAndSessionOptional(BindingMutant):
    """Fills in agent_id and session when the context leaves them out."""

    def _verified_claims(self, token: Any) -> dict[str, Any]:
        return {
            "agent_id": "agent:unknown",
            "session": "session:unknown",
        } | super()._verified_claims(token)


class ToolsNullEnablesNothing(BindingMutant):
    """Reads a null tools claim as the empty list instead of as absent."""

    def _verified_claims(self, token: Any) -> dict[str, Any]:
        claims = super()._verified_claims(token)
        return {**claims, "tools": []} if "tools" in claims and claims["tools"] is None else claims


class ToolClaimNotCompared(LetsThrough):
    """Serves a call whose context was issued for another tool, or names none (the comparison
    is the only check of the tool claim)."""

    skipped = "names another tool"


class PurposeNotCompared(LetsThrough):
    """Never compares the purpose_ref argument with the bound purpose."""

    skipped = "purpose_ref argument differs"


class UnknownToolAsUntrustedContext(BindingMutant):
    """Answers an unknown tool with -32603 instead of -32602."""

    def admit_call(self, tool: str, arguments: Any, meta: Any) -> InvocationContext:
        if tool not in self.spec.tools:
            raise ContextUnavailable("no such tool")
        return super().admit_call(tool, arguments, meta)


class UnknownToolAsErrorResult(WiringMutant):
    """A tool the server does not have is answered with a tool result, isError true and the
    text "Unknown tool: NAME", instead of JSON-RPC error -32602."""

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        if params.name in self.spec.tools:
            return await super().call_tool(ctx, params)
        text = types.TextContent(type="text", text=f"Unknown tool: {params.name}")
        return types.CallToolResult(content=[text], is_error=True)


class PurposeMismatchAsEnvelope(WiringMutant):
    """The tool handler, not the protocol layer, compares purpose_ref with the bound purpose:
    a mismatch is answered with an UNAUTHORIZED envelope instead of JSON-RPC error -32603."""

    def __init__(self, service: Any, binding: HostBinding) -> None:
        super().__init__(service, PurposeNotCompared(binding))

    def _envelope(self, tool: str, arguments: Any, context: InvocationContext) -> dict[str, Any]:
        purpose = sent_purpose(self.spec, tool, arguments)
        if purpose is not None and purpose != context.purpose_ref:
            return failure(self.spec, "UNAUTHORIZED", context.audit_id)
        return super()._envelope(tool, arguments, context)


class DisabledToolAsUntrustedContext(BindingMutant):
    """Answers a tool the context does not enable with -32603 instead of -32602."""

    def admit_call(self, tool: str, arguments: Any, meta: Any) -> InvocationContext:
        try:
            return super().admit_call(tool, arguments, meta)
        except UnknownTool as refusal:
            if tool not in self.spec.tools:
                raise
            raise ContextUnavailable(refusal.reason) from None


class EmptyToolsClaimEnablesAll(BindingMutant):
    """``if not context.tools``: an empty tools claim enables every tool."""

    def context(self, meta: Any) -> InvocationContext | None:
        found = super().context(meta)
        return replace(found, tools=None) if found is not None and not found.tools else found


class ToolsListIgnoresTheClaim(BindingMutant):
    """tools/list verifies the context, then lists every tool whatever its tools claim."""

    def listed_tools(self, meta: Any) -> list[str]:
        self.context(meta)
        return list(self.spec.tools)


class ToolsListSkipsBadContexts(BindingMutant):
    """tools/list with a context that does not verify lists every tool."""

    def listed_tools(self, meta: Any) -> list[str]:
        try:
            return super().listed_tools(meta)
        except ContextUnavailable:
            return list(self.spec.tools)


class ToolsListChecksTheToolClaim(BindingMutant):
    """tools/list refuses a context whose tool claim names no tool (such as "tools/list"), as
    the first reference did through the claims schema's tool-name pattern."""

    def listed_tools(self, meta: Any) -> list[str]:
        context = self.context(meta)
        if context is not None and context.tool not in self.spec.tools:
            raise ContextUnavailable("the context names no tool")
        return super().listed_tools(meta)


def _without(arguments: Any, name: str) -> Any:
    return {k: v for k, v in arguments.items() if k != name}


class AcceptsHistoryArgument(ServiceProxy):
    """Takes an include_history flag (a maintenance inspection) on any tool."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        return super().call(tool, _without(arguments, "include_history"), context)


class TakesTenantFromArguments(ServiceProxy):
    """A tenant argument selects the scope, over the bound one."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        if "tenant" in arguments:
            context = replace(context, tenant=arguments["tenant"])
        return super().call(tool, _without(arguments, "tenant"), context)


class IgnoresDeadline(ServiceProxy):
    """Never reads the deadline claim."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        return super().call(tool, arguments, replace(context, deadline_ms=None))


class DeadlineCheckedAfterWriting(ServiceProxy):
    """Runs the call, then answers DEADLINE_EXCEEDED if the deadline had passed."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        answer = super().call(tool, arguments, replace(context, deadline_ms=None))
        if context.deadline_ms is not None and self.inner.clock() >= context.deadline_ms:
            return failure(self.inner.spec, "DEADLINE_EXCEEDED", context.audit_id)
        return answer


class SchemaCheckedBeforeDeadline(ServiceProxy):
    """Validates the arguments before it looks at the deadline."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        verdict = validate_arguments(tool, arguments, clock=None, spec=self.inner.spec)
        if not verdict.ok:
            return failure(self.inner.spec, verdict.code, context.audit_id)
        return super().call(tool, arguments, context)


class MadeUpTrustClass(ServiceProxy):
    """Returns records whose trust class is none of earned, asserted, signed."""

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        value = envelope.get("output", {}).get("value", {})
        for packet in [*value.get("records", []), value]:
            if "record" in packet:
                packet["record"]["trust"] = {"class": "verified"}
        return envelope


#: (mutant, the rules it breaks, rules whose checks it stops from deciding: error)
MUTANTS: list[tuple[type, tuple[str, ...], tuple[str, ...]]] = [
    (FallsBackToAnonymousContext, ("HOST-001",), ()),
    (SignatureNotVerified, ("HOST-002", "HOST-010"), ()),
    (TypNotChecked, ("HOST-002", "HOST-010"), ()),
    (AcceptsExpiredContexts, ("HOST-003", "HOST-010", "HOST-016"), ()),
    (AcceptsLongLivedContexts, ("HOST-003",), ()),
    (AcceptsContextsFromTheFuture, ("HOST-003",), ()),
    (AgentAndSessionOptional, ("HOST-004",), ()),
    (ToolsNullEnablesNothing, ("HOST-004", "HOST-009"), ()),
    (ToolClaimNotCompared, ("HOST-004", "HOST-005", "HOST-016"), ()),
    (PurposeNotCompared, ("HOST-006", "HOST-016"), ()),
    (PurposeMismatchAsEnvelope, ("HOST-006", "HOST-016"), ()),
    (UnknownToolAsUntrustedContext, ("HOST-007", "HOST-016"), ("HOST-008", "HOST-011")),
    (UnknownToolAsErrorResult, ("HOST-007", "HOST-016"), ("HOST-008", "HOST-011")),
    (DisabledToolAsUntrustedContext, ("HOST-008", "HOST-011", "HOST-016"), ()),
    (EmptyToolsClaimEnablesAll, ("HOST-009", "HOST-011"), ()),
    (ToolsListIgnoresTheClaim, ("HOST-009", "HOST-011"), ()),
    (ToolsListSkipsBadContexts, ("HOST-010",), ()),
    (ToolsListChecksTheToolClaim, ("HOST-022",), ()),
    (AcceptsHistoryArgument, ("HOST-013",), ()),
    (TakesTenantFromArguments, ("HOST-014",), ()),
    (IgnoresDeadline, ("HOST-015", "HOST-016"), ()),
    (DeadlineCheckedAfterWriting, ("HOST-015",), ()),
    (SchemaCheckedBeforeDeadline, ("HOST-016",), ()),
    (MadeUpTrustClass, ("HOST-017",), ()),
]


@pytest.mark.parametrize(
    ("mutant", "broken", "undecided"), MUTANTS, ids=[mutant.__name__ for mutant, *_ in MUTANTS]
)
def test_host_mutant_is_caught(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mutant: type,
    broken: tuple[str, ...],
    undecided: tuple[str, ...],
) -> None:
    result = run_against(tmp_path, only=("HOST",), **plant(monkeypatch, mutant))
    assert_caught(family_verdicts(result, "HOST"), broken, undecided)


def test_reference_passes_every_host_rule(tmp_path: Path) -> None:
    verdicts = family_verdicts(run_against(tmp_path, only=("HOST",)), "HOST")
    untestable = [rule for rule in verdicts if not load().rules[rule].testable]
    assert {rule: v for rule, v in verdicts.items() if v != "pass"} == dict.fromkeys(
        untestable, "not_applicable"
    )
