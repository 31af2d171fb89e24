"""Servers that break an envelope or error rule (ENV, ERR): service proxies that alter the
envelope the reference answers, and wiring mutants that alter the tool result carrying it."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from engram_conformance.spec.engram_memory import instant
from engram_conformance.spec.engram_memory.tool_names import GET
from mcp.shared.exceptions import MCPError

from ...caught import Caught
from ..answers import refusal
from ..base import ServiceProxy, WiringMutant


class WrongAuditId(ServiceProxy):
    """auditId is not the bound audit_id (ENV-006)."""

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        return {**envelope, "auditId": "audit-made-up"}


class ExtraEnvelopeField(ServiceProxy):
    """The envelope carries a field the contract does not have (ENV-003)."""

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        return {**envelope, "debug": True}


class WrongRetriable(ServiceProxy):
    """NOT_FOUND is answered retriable (ERR-003)."""

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        error = envelope.get("error")
        if error and error["code"] == "NOT_FOUND":
            return {**envelope, "error": {**error, "retriable": True}}
        return envelope


class MessageNamesTheTarget(ServiceProxy):
    """NOT_FOUND's message names the record_id or candidate_id it did not find: it echoes the
    input (ENV-007)."""

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        error = envelope.get("error")
        sent = arguments if isinstance(arguments, dict) else {}
        target = sent.get("record_id", sent.get("candidate_id"))
        if error and error["code"] == "NOT_FOUND" and isinstance(target, str):
            return {**envelope, "error": {**error, "message": f"{error['message']}: {target}"}}
        return envelope


class ValueProxy(ServiceProxy):
    """Base: alters the output value of every success (``change``, in place)."""

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        if envelope["ok"]:
            self.change(tool, envelope["output"]["value"])
        return envelope

    def change(self, tool: str, value: dict[str, Any]) -> None:
        raise NotImplementedError


class ErrorProxy(ServiceProxy):
    """Base: alters the error of every failure (``change`` returns the new error)."""

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        if envelope["ok"]:
            return envelope
        return {**envelope, "error": self.change(tool, arguments, dict(envelope["error"]))}

    def change(self, tool: str, arguments: Any, error: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError


class FailuresLowRedactionClass(ServiceProxy):
    """Failures say redactionClass "low" (ENV-002): nothing of the memory is in them."""

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        return envelope if envelope["ok"] else {**envelope, "redactionClass": "low"}


class GetAnswersForgetsCode(ServiceProxy):
    """get of a record it does not find answers ALREADY_TERMINAL, the code its shared lookup
    answers forget with, which the error table gives forget only (ERR-005)."""

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        if tool == GET and not envelope["ok"] and envelope["error"]["code"] == "NOT_FOUND":
            return refusal("ALREADY_TERMINAL", context)
        return envelope


class LowRedactionClass(ServiceProxy):
    """Successes say redactionClass "low" (ENV-001)."""

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        return {**envelope, "redactionClass": "low"} if envelope["ok"] else envelope


class OutputWithoutSchemaVersion(ServiceProxy):
    """The output of a success has no schema_version (ENV-001)."""

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        if envelope["ok"]:
            return {**envelope, "output": {"value": envelope["output"]["value"]}}
        return envelope


class RetriableAsString(ErrorProxy):
    """error.retriable is the string "false" or "true" (ERR-001)."""

    def change(self, tool: str, arguments: Any, error: dict[str, Any]) -> dict[str, Any]:
        return {**error, "retriable": str(error["retriable"]).lower()}


class GateFailedUpperCase(ErrorProxy):
    """gate_failed is spelled GATE_FAILED, as the other codes are (ERR-002)."""

    def change(self, tool: str, arguments: Any, error: dict[str, Any]) -> dict[str, Any]:
        return {**error, "code": error["code"].upper()}


class MessageNamesTheTool(ErrorProxy):
    """Each tool words its messages its own way, each constant (ERR-007 only)."""

    def change(self, tool: str, arguments: Any, error: dict[str, Any]) -> dict[str, Any]:
        return {**error, "message": f"{tool}: {error['message']}"}


class MessageCountsTheBytes(ErrorProxy):
    """The message tells the size of the arguments sent: it varies with their values, though
    it quotes none of them (ERR-004)."""

    def change(self, tool: str, arguments: Any, error: dict[str, Any]) -> dict[str, Any]:
        size = len(json.dumps(arguments, ensure_ascii=False))
        return {**error, "message": f"{error['message']} ({size} bytes)"}


class ReceiptWithoutEventId(ValueProxy):
    """withdraw and forget receipts lack event_id (ENV-009)."""

    def change(self, tool: str, value: dict[str, Any]) -> None:
        value.get("receipt", {}).pop("event_id", None)


class ReplayedAsString(ValueProxy):
    """replayed is the string "false" or "true" (ENV-011: the seed writes replayed: true)."""

    def change(self, tool: str, value: dict[str, Any]) -> None:
        if "replayed" in value:
            value["replayed"] = str(value["replayed"]).lower()


class StatusOutsideTheSeed(ValueProxy):
    """capture answers status "pending" for committed_pending (ENV-011)."""

    def change(self, tool: str, value: dict[str, Any]) -> None:
        if value.get("status") == "committed_pending":
            value["status"] = "pending"


class ScoresAsStrings(ValueProxy):
    """search scores are strings (ENV-012, a type the seed does not give)."""

    def change(self, tool: str, value: dict[str, Any]) -> None:
        for packet in value.get("records", []):
            packet["score"] = str(packet["score"])


class UpperCaseDigests(ValueProxy):
    """transaction_receipt_digest has upper-case hex digits (ENV-013)."""

    def change(self, tool: str, value: dict[str, Any]) -> None:
        for part in (value, value.get("outcome"), value.get("receipt")):
            if isinstance(part, dict) and "transaction_receipt_digest" in part:
                hexits = part["transaction_receipt_digest"].removeprefix("sha256:")
                part["transaction_receipt_digest"] = "sha256:" + hexits.upper()


class OpaqueCursors(ValueProxy):
    """Journal cursors are opaque strings, not decimal integers (ENV-014)."""

    def change(self, tool: str, value: dict[str, Any]) -> None:
        for part in (value, value.get("outcome"), value.get("receipt")):
            if isinstance(part, dict) and isinstance(part.get("cursor"), str):
                part["cursor"] = f"c-{part['cursor']}"


class ValidAsOfAsInstant(ValueProxy):
    """read_receipt.valid_as_of is an Instant string, not epoch milliseconds (ENV-015)."""

    def change(self, tool: str, value: dict[str, Any]) -> None:
        receipt = value.get("read_receipt")
        if isinstance(receipt, dict):
            receipt["valid_as_of"] = instant(receipt["valid_as_of"])


class MessagesNameFields(ServiceProxy):
    """Not a mutant: every message is a constant of its code that names argument fields, as
    "Record projection exceeds max_packet_bytes" does, which echoes no value sent."""

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        error = envelope.get("error")
        if error:
            message = f"{error['code']}: check max_packet_bytes, record_id and idempotency_key"
            return {**envelope, "error": {**error, "message": message}}
        return envelope


class ErrorsNotFlagged(WiringMutant):
    """Failure envelopes travel with isError false, a slip of servers that set
    structuredContent by hand (ENV-005)."""

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        result = await super().call_tool(ctx, params)
        return result.model_copy(update={"is_error": False})


class RefusalsCarryTheirEnvelope(WiringMutant):
    """A protocol refusal also carries an error envelope in the JSON-RPC error's data (ENV-010:
    a protocol error never carries an envelope)."""

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        try:
            return await super().call_tool(ctx, params)
        except MCPError as refusal:
            envelope = {
                "ok": False,
                "auditId": "audit-refused",
                "redactionClass": "high",
                "error": {"code": "UNAUTHORIZED", "message": "refused", "retriable": False},
            }
            raise MCPError(refusal.code, refusal.error.message, {"envelope": envelope}) from None


class TextCarriesTheValue(WiringMutant):
    """The text content carries the output value (or the error) alone, while structuredContent
    carries the envelope (ENV-004)."""

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        result = await super().call_tool(ctx, params)
        envelope = result.structured_content or {}
        inner = envelope["output"]["value"] if envelope.get("ok") else envelope.get("error")
        text = types.TextContent(type="text", text=json.dumps(inner, ensure_ascii=False))
        return result.model_copy(update={"content": [text]})


#: The families whose checks provoke most answers an envelope mutant alters.
ENVELOPE = ("ENV", "ERR")

#: (mutant, what it breaks, the families whose checks provoke the answers it alters)
MUTANTS: list[tuple[type, Caught, tuple[str, ...]]] = [
    (WrongAuditId, Caught(("ENV-006",)), ENVELOPE),
    (ExtraEnvelopeField, Caught(("ENV-003",)), ENVELOPE),
    (WrongRetriable, Caught(("ERR-003",)), ENVELOPE),
    (MessageNamesTheTarget, Caught(("ENV-007", "ERR-004", "ERR-007")), ENVELOPE),
    (TextCarriesTheValue, Caught(("ENV-004",)), ENVELOPE),
    (LowRedactionClass, Caught(("ENV-001",)), ENVELOPE),
    (FailuresLowRedactionClass, Caught(("ENV-002",)), ENVELOPE),
    (GetAnswersForgetsCode, Caught(("ERR-005",)), ENVELOPE),
    (OutputWithoutSchemaVersion, Caught(("ENV-001",)), ENVELOPE),
    (RetriableAsString, Caught(("ERR-001", "ERR-003")), ENVELOPE),
    (ErrorsNotFlagged, Caught(("ENV-005",)), ENVELOPE),
    (RefusalsCarryTheirEnvelope, Caught(("ENV-010",)), ("ENV", "ERR", "HOST-007")),
    (
        GateFailedUpperCase,
        Caught(
            ("ERR-002", "GATE-003", "GATE-004", "GATE-005", "GATE-006", "GATE-010", "GATE-011"),
            undecided=("GATE-012",),
        ),
        ("ERR", "GATE"),
    ),
    (MessageNamesTheTool, Caught(("ERR-007",)), ENVELOPE),
    (MessageCountsTheBytes, Caught(("ERR-004", "ERR-007")), ENVELOPE),
    (ReceiptWithoutEventId, Caught(("ENV-009",)), ENVELOPE),
    (ReplayedAsString, Caught(("ENV-011",)), ENVELOPE),
    (StatusOutsideTheSeed, Caught(("ENV-011",)), ENVELOPE),
    (ScoresAsStrings, Caught(("ENV-012",)), ENVELOPE),
    (UpperCaseDigests, Caught(("ENV-013",)), ENVELOPE),
    (OpaqueCursors, Caught(("ENV-014",)), ENVELOPE),
    (ValidAsOfAsInstant, Caught(("ENV-015",)), ENVELOPE),
]
