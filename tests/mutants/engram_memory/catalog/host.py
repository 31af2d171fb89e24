"""Servers that break a host-binding rule (HOST): a binding that verifies the invocation context
less (or more) than the contract says, wiring that answers a refusal in another form, a service
that reads what only the host may bind."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

import jwt
import mcp_types as types
from engram_conformance.reference_impl.engram_memory.binding import (
    ContextUnavailable,
    HostBinding,
    ProtocolRefusal,
    UnknownTool,
    sent_purpose,
)
from engram_conformance.reference_impl.engram_memory.context import (
    UNUSABLE_CONFIRMATION,
    InvocationContext,
)
from engram_conformance.reference_impl.engram_memory.envelope import failure
from engram_conformance.spec.engram_memory import validate_arguments
from mcp.shared.exceptions import MCPError

from ...caught import Caught
from ..base import BindingMutant, LetsThrough, ServiceProxy, WiringMutant


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


class NoSkewOnIssuedAt(BindingMutant):
    """Refuses a context whose iat lies ahead of its clock at all (no 5 s of skew)."""

    def verify(self, token: Any) -> InvocationContext:
        context = super().verify(token)
        if context.issued_at_s * 1000 > self._clock():
            raise ContextUnavailable("the context is issued in the future")
        return context


#: The Instant form, ``YYYY-MM-DDTHH:mm:ss.sssZ``.
INSTANT = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


class UnparsableDeadlineDropped(BindingMutant):
    """Drops a deadline claim that is not an Instant, instead of refusing the context."""

    def _verified_claims(self, token: Any) -> dict[str, Any]:
        claims = super()._verified_claims(token)
        deadline = claims.get("deadline")
        if deadline is not None and not (isinstance(deadline, str) and INSTANT.match(deadline)):
            return {name: value for name, value in claims.items() if name != "deadline"}
        return claims


class NullConfirmationIsAConfirmation(BindingMutant):
    """Takes a confirmation claim that is null for one that holds for no call: withdraw and
    forget then pass the protocol checks and answer gate_failed, not -32603."""

    def verify(self, token: Any) -> InvocationContext:
        context = super().verify(token)
        claims = self._verified_claims(token)
        if "confirmation" in claims and claims["confirmation"] is None:
            return replace(context, confirmation=UNUSABLE_CONFIRMATION)
        return context


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


class ToolsClaimIgnoredOnCalls(LetsThrough):
    """Serves a tool the context's tools claim leaves out (tools/list still follows it)."""

    skipped = "does not enable this tool"


class EnabledOnlyWithSearch(BindingMutant):
    """Serves no tool under a tools claim that leaves search out: enabling memory grants the
    tools only together."""

    def admit_call(self, tool: str, arguments: Any, meta: Any) -> InvocationContext:
        context = super().admit_call(tool, arguments, meta)
        if context.tools is not None and "engram_memory_search" not in context.tools:
            raise UnknownTool("the context does not enable search")
        return context


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


class ToolsListChecksOnlySignatureAndExpiry(BindingMutant):
    """tools/list verifies the signature and the expiry of its context, nothing else (not the
    lifetime, nor a future iat, nor the required claims)."""

    def listed_tools(self, meta: Any) -> list[str]:
        token = (meta or {}).get(self.meta_key)
        if token is None:
            return list(self.spec.tools)
        claims = self._verified_claims(token)
        exp = claims.get("exp")
        if not isinstance(exp, int) or self._clock() >= exp * 1000:
            raise ContextUnavailable("the context has expired")
        enabled = claims.get("tools")
        return [name for name in self.spec.tools if enabled is None or name in enabled]


class ToolsListEmptyWithoutAContext(BindingMutant):
    """tools/list without a context lists nothing (a server that shows its tools only to a
    host that binds a context)."""

    def listed_tools(self, meta: Any) -> list[str]:
        return [] if self.context(meta) is None else super().listed_tools(meta)


class ToolsListRefusedWithoutAContext(BindingMutant):
    """tools/list without a context is refused with -32603."""

    def listed_tools(self, meta: Any) -> list[str]:
        if self.context(meta) is None:
            raise ContextUnavailable("tools/list carries no invocation context")
        return super().listed_tools(meta)


class ToolsListHidesForgetWithoutAContext(BindingMutant):
    """tools/list without a context leaves forget out (it lists it with a context, and serves
    it)."""

    def listed_tools(self, meta: Any) -> list[str]:
        listed = super().listed_tools(meta)
        if self.context(meta) is None:
            return [name for name in listed if name != "engram_memory_forget"]
        return listed


class ToolsClaimReadBeforeVerifying(BindingMutant):
    """Reads the tools claim from the token before verifying it: a disabled tool is answered
    -32602 even when the context is expired or names another tool (-32603 comes first)."""

    def admit_call(self, tool: str, arguments: Any, meta: Any) -> InvocationContext:
        token = (meta or {}).get(self.meta_key)
        if tool in self.spec.tools and isinstance(token, str):
            try:
                jws = self._jws.decode_complete(token, options={"verify_signature": False})
                claims = json.loads(jws["payload"])
            except (jwt.PyJWTError, ValueError):
                claims = None
            enabled = claims.get("tools") if isinstance(claims, dict) else None
            if isinstance(enabled, list) and tool not in enabled:
                raise UnknownTool("the context does not enable this tool")
        return super().admit_call(tool, arguments, meta)


class PurposeComparedBeforeEnabled(BindingMutant):
    """Compares the purpose_ref argument before it looks at the tools claim: a disabled tool
    with another purpose is answered -32603, not -32602."""

    def admit_call(self, tool: str, arguments: Any, meta: Any) -> InvocationContext:
        try:
            return super().admit_call(tool, arguments, meta)
        except UnknownTool:
            if tool not in self.spec.tools:
                raise
            context = self.context(meta)
            purpose = sent_purpose(self.spec, tool, arguments)
            if context is not None and purpose is not None and purpose != context.purpose_ref:
                raise ContextUnavailable("the purpose_ref argument differs") from None
            raise


class DeadlineBeforeProtocolChecks(WiringMutant):
    """Answers DEADLINE_EXCEEDED as soon as a verified context for the tool has a passed
    deadline, before comparing purpose_ref and looking for withdraw's and forget's
    confirmation."""

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        try:
            context = self.binding.context(params.meta)
        except ProtocolRefusal:
            context = None
        if (
            context is not None
            and context.tool == params.name
            and (context.tools is None or params.name in context.tools)
            and context.deadline_ms is not None
            and self.binding._clock() >= context.deadline_ms
        ):
            return _result(failure(self.spec, "DEADLINE_EXCEEDED", context.audit_id))
        return await super().call_tool(ctx, params)


class UnknownToolMessageNamesTheTool(WiringMutant):
    """Answers -32602 with the message "Unknown tool: NAME" (as SDKs do), not "Unknown tool"."""

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        try:
            return await super().call_tool(ctx, params)
        except MCPError as error:
            if error.code != -32602:
                raise
            raise MCPError(-32602, f"Unknown tool: {params.name}") from None


class RefusalReasonInTheMessage(WiringMutant):
    """Puts the reason of a -32603 refusal into its message, after the constant text."""

    def _protocol_error(self, method: str, refusal: ProtocolRefusal) -> MCPError:
        error = super()._protocol_error(method, refusal)
        if error.code != -32603:
            return error
        return MCPError(-32603, f"{error.message}: {refusal.reason}")


def _listed_extra(name: str) -> type[WiringMutant]:
    """A wiring mutant that lists one more tool, ``name`` (calling it answers -32602)."""

    async def list_tools(self: WiringMutant, ctx: Any, params: Any) -> types.ListToolsResult:
        listed = await WiringMutant.list_tools(self, ctx, params)
        extra = types.Tool(name=name, input_schema={"type": "object"})
        return types.ListToolsResult(tools=[*listed.tools, extra])

    return type(f"Lists_{name}", (WiringMutant,), {"list_tools": list_tools})


class ListsABackupTool(_listed_extra("memory_backup")):
    """Lists a memory_backup tool: maintenance (backup) offered to the agent."""


class ListsAnExportTool(_listed_extra("engram_memory_export")):
    """Lists engram_memory_export, which is none of the six (and no maintenance operation)."""


class PublishesOpenInputSchemas(WiringMutant):
    """Publishes each tool's input schema without additionalProperties false (the calls are
    still checked against the closed one): what it tells clients is not the contract's."""

    async def list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        listed = await super().list_tools(ctx, params)
        opened = [
            tool.model_copy(
                update={
                    "input_schema": {
                        k: v for k, v in tool.input_schema.items() if k != "additionalProperties"
                    }
                }
            )
            for tool in listed.tools
        ]
        return types.ListToolsResult(tools=opened)


def _result(envelope: dict[str, Any]) -> types.CallToolResult:
    """A tool result carrying ``envelope``, as the reference's wiring makes it."""
    text = types.TextContent(type="text", text=json.dumps(envelope, ensure_ascii=False))
    return types.CallToolResult(
        content=[text], structured_content=envelope, is_error=not envelope["ok"]
    )


class ConfirmedArgumentPassesTheProtocolChecks(LetsThrough):
    """Lets withdraw and forget carrying confirmed: true in their arguments, but no confirmation,
    past the protocol checks: the schema refuses them (INVALID_SCHEMA) instead of -32603."""

    skipped = "carries no confirmation"

    def admit_call(self, tool: str, arguments: Any, meta: Any) -> InvocationContext:
        if arguments.get("confirmed") is True:
            return super().admit_call(tool, arguments, meta)
        return HostBinding.admit_call(self, tool, arguments, meta)


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


#: (mutant, what it breaks). Rules of other families it breaks (or leaves undecided) are
#: selected too, with the HOST family.
MUTANTS: list[tuple[type, Caught]] = [
    (FallsBackToAnonymousContext, Caught(("HOST-001",))),
    (SignatureNotVerified, Caught(("HOST-002", "HOST-010"))),
    (TypNotChecked, Caught(("HOST-002", "HOST-010"))),
    (AcceptsExpiredContexts, Caught(("HOST-003", "HOST-010", "HOST-016"))),
    (AcceptsLongLivedContexts, Caught(("HOST-003", "HOST-010"))),
    (AcceptsContextsFromTheFuture, Caught(("HOST-003", "HOST-010"))),
    (NoSkewOnIssuedAt, Caught(("HOST-003",))),
    (AgentAndSessionOptional, Caught(("HOST-004", "HOST-010"))),
    (ToolsNullEnablesNothing, Caught(("HOST-004", "HOST-009"))),
    (NullConfirmationIsAConfirmation, Caught(("HOST-004",))),
    (ToolClaimNotCompared, Caught(("HOST-004", "HOST-005", "HOST-016"))),
    (PurposeNotCompared, Caught(("HOST-006", "HOST-016"))),
    (PurposeMismatchAsEnvelope, Caught(("HOST-006", "HOST-016"))),
    (UnknownToolAsUntrustedContext, Caught(("HOST-007", "HOST-008", "HOST-016"))),
    (UnknownToolAsErrorResult, Caught(("HOST-007", "HOST-008", "HOST-016"))),
    (DisabledToolAsUntrustedContext, Caught(("HOST-008", "HOST-016"))),
    (EmptyToolsClaimEnablesAll, Caught(("HOST-008", "HOST-009", "HOST-011"))),
    (ToolsClaimIgnoredOnCalls, Caught(("HOST-008", "HOST-011", "HOST-016"))),
    (EnabledOnlyWithSearch, Caught(("HOST-011",))),
    (ToolsListIgnoresTheClaim, Caught(("HOST-009",))),
    (ToolsListSkipsBadContexts, Caught(("HOST-010",))),
    (ToolsListChecksOnlySignatureAndExpiry, Caught(("HOST-010",))),
    (ToolsListChecksTheToolClaim, Caught(("HOST-022",))),
    (ToolsListEmptyWithoutAContext, Caught(("HOST-020",))),
    (ToolsListRefusedWithoutAContext, Caught(("HOST-020",))),
    # forget, claimed and not listed without a context, leaves its part of every HOST rule
    # untested: those rules are errors, as HOST-020 says ("the rules that need it cannot be
    # tested"), never a pass resting on the other five tools
    (
        ToolsListHidesForgetWithoutAContext,
        Caught(
            ("HOST-009", "HOST-020"),
            undecided=(
                *("HOST-001", "HOST-002", "HOST-003", "HOST-004", "HOST-005", "HOST-007"),
                *("HOST-008", "HOST-010", "HOST-011", "HOST-013", "HOST-014", "HOST-015"),
                *("HOST-016", "HOST-021", "HOST-022", "HOST-023", "HOST-024"),
            ),
        ),
    ),
    (UnparsableDeadlineDropped, Caught(("HOST-023",))),
    (ListsABackupTool, Caught(("HOST-013",))),
    (ListsAnExportTool, Caught(("HOST-024",))),
    (PublishesOpenInputSchemas, Caught(("HOST-021",))),
    (AcceptsHistoryArgument, Caught(("HOST-013",))),
    (TakesTenantFromArguments, Caught(("HOST-014",))),
    (IgnoresDeadline, Caught(("HOST-015", "HOST-016"))),
    (DeadlineCheckedAfterWriting, Caught(("HOST-015",))),
    (SchemaCheckedBeforeDeadline, Caught(("HOST-016",))),
    (ToolsClaimReadBeforeVerifying, Caught(("HOST-016",))),
    (PurposeComparedBeforeEnabled, Caught(("HOST-016",))),
    (DeadlineBeforeProtocolChecks, Caught(("HOST-016",))),
    (ConfirmedArgumentPassesTheProtocolChecks, Caught(("HOST-016",))),
    (MadeUpTrustClass, Caught(("LIFE-007",))),
    (UnknownToolMessageNamesTheTool, Caught(("ERR-006", "HOST-008"))),
    (RefusalReasonInTheMessage, Caught(("ERR-006",))),
]
