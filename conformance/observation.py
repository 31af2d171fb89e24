"""One call as the harness saw it: what was sent and what came back (or did not)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

Outcome = Literal["result", "protocol_error", "fault"]


@dataclass(frozen=True)
class Observation:
    """A ``tools/call`` (or ``tools/list``) and its answer.

    ``outcome`` is ``result`` (a CallToolResult: ``structured``, ``text``, ``is_error``),
    ``protocol_error`` (a JSON-RPC error: ``error_code``, ``error_message``, ``error_data``) or
    ``fault`` (the
    connection broke or timed out: ``fault``).
    """

    index: int
    method: str
    tool: str | None
    arguments: Any
    claims: dict[str, Any] | None
    meta: dict[str, Any] | None
    outcome: Outcome
    structured: Any = None
    text: str | None = None
    is_error: bool | None = None
    error_code: int | None = None
    error_message: str | None = None
    error_data: Any = None
    fault: str | None = None
    latency_ms: float = 0.0

    @property
    def envelope(self) -> dict[str, Any] | None:
        """The result envelope, when the answer is a result carrying an object."""
        return self.structured if isinstance(self.structured, dict) else None

    @property
    def ok(self) -> bool:
        return self.envelope is not None and self.envelope.get("ok") is True

    @property
    def value(self) -> dict[str, Any]:
        """The success output value ({} when there is none)."""
        envelope = self.envelope or {}
        output = envelope.get("output")
        value = output.get("value") if isinstance(output, dict) else None
        return value if isinstance(value, dict) else {}

    @property
    def code(self) -> str | int | None:
        """The error envelope's code, the JSON-RPC error code, or None for a success."""
        if self.outcome == "protocol_error":
            return self.error_code
        error = (self.envelope or {}).get("error")
        return error.get("code") if isinstance(error, dict) else None

    def answer(self) -> dict[str, Any]:
        """The answer as data, for transcripts and reports."""
        if self.outcome == "result":
            return {
                "structuredContent": self.structured,
                "text": self.text,
                "isError": self.is_error,
            }
        if self.outcome == "protocol_error":
            error = {"code": self.error_code, "message": self.error_message}
            return {
                "error": error if self.error_data is None else {**error, "data": self.error_data}
            }
        return {"fault": self.fault}

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "method": self.method,
            "tool": self.tool,
            "arguments": self.arguments,
            "claims": self.claims,
            "meta": self.meta,
            "answer": self.answer(),
            "latency_ms": round(self.latency_ms, 3),
        }

    def summary(self) -> str:
        return json.dumps(self.answer(), ensure_ascii=False, sort_keys=True)[:2000]
