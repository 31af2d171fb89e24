"""One call as the harness saw it: what was sent and what came back (or did not)."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Literal

Outcome = Literal["result", "protocol_error", "fault"]
#: The longest answer (its JSON text) kept whole in transcripts and evidence; a longer one is
#: kept as its first ``KEPT_BEGINNING_CHARS`` and its size.
KEPT_ANSWER_CHARS = 64 * 1024
KEPT_BEGINNING_CHARS = 4096
#: An answer's JSON text as transcripts measure and cut it (one encoder, made once).
_ANSWER_TEXT = json.JSONEncoder(ensure_ascii=False, sort_keys=True, default=str)


@dataclass(frozen=True)
class Observation:
    """A ``tools/call`` (or ``tools/list``) and its answer.

    ``outcome`` is ``result`` (a CallToolResult: ``structured``, ``text``, ``is_error``),
    ``protocol_error`` (a JSON-RPC error: ``error_code``, ``error_message``, ``error_data``) or
    ``fault`` (the connection broke or timed out: ``fault``). ``sent_by`` is ``sdk`` for a
    request the SDK client made on its own (a tools/list before it judges a call's answer).
    ``cut`` is set on a copy that keeps only the beginning of a long answer (``kept``).
    """

    index: int
    method: str
    tool: str | None
    arguments: Any
    claims: dict[str, Any] | None
    meta: dict[str, Any] | None
    outcome: Outcome
    structured: Any = None
    #: the first text block of a result, and the others it has (a contract reads them all)
    text: str | None = None
    more_texts: tuple[str, ...] = ()
    is_error: bool | None = None
    error_code: int | None = None
    error_message: str | None = None
    error_data: Any = None
    fault: str | None = None
    #: the fault is the call time-out passing, and the transport saw nothing else go wrong
    timed_out: bool = False
    latency_ms: float = 0.0
    sent_by: Literal["harness", "sdk"] = "harness"
    #: the size of the answer's JSON text and its beginning, when only that is kept
    cut: tuple[int, str] | None = None
    #: set on a copy ``kept`` measured and kept whole, so that it is measured once
    whole: bool = False
    #: whether the SDK client checked the result against the tool's published outputSchema, and
    #: why it found the ``structured`` content not valid under it (the answer is kept all the
    #: same: ``Session.call``)
    output_checked: bool = False
    output_refused: str | None = None

    def answer(self) -> dict[str, Any]:
        """The answer as data, for transcripts and reports."""
        if self.cut is not None:
            characters, beginning = self.cut
            return {"cut": {"characters": characters, "begins": beginning}}
        if self.outcome == "result":
            refused = {"outputSchemaRefused": self.output_refused} if self.output_refused else {}
            more = {"moreTexts": list(self.more_texts)} if self.more_texts else {}
            return (
                {
                    "structuredContent": self.structured,
                    "text": self.text,
                    "isError": self.is_error,
                }
                | more
                | refused
            )
        if self.outcome == "protocol_error":
            error = {"code": self.error_code, "message": self.error_message}
            return {
                "error": error if self.error_data is None else {**error, "data": self.error_data}
            }
        return {"fault": self.fault}

    def recorded(self, index: int, latency_ms: float) -> tuple[Observation, Observation]:
        """This observation as its session records it, numbered and timed, and the copy its
        transcript keeps (``kept``; the same one unless the answer is long), its answer encoded
        once: a call's path makes no other copy, each costing microseconds on every call."""
        if self.outcome == "fault":
            numbered = replace(self, index=index, latency_ms=latency_ms)
            return numbered, numbered
        text = self._answer_text()
        whole = len(text) <= KEPT_ANSWER_CHARS
        numbered = replace(self, index=index, latency_ms=latency_ms, whole=whole)
        return numbered, numbered if whole else numbered._cut_to(text)

    def _answer_text(self) -> str:
        return _ANSWER_TEXT.encode(self.answer())

    def kept(self) -> Observation:
        """This observation as transcripts keep it: an answer of over ``KEPT_ANSWER_CHARS``
        (a server may send megabytes) becomes its beginning and its size."""
        if self.cut is not None or self.whole or self.outcome == "fault":
            return self
        text = self._answer_text()
        return replace(self, whole=True) if len(text) <= KEPT_ANSWER_CHARS else self._cut_to(text)

    def _cut_to(self, text: str) -> Observation:
        """This observation with its answer (``text``, too long to keep) cut to its beginning."""
        return replace(
            self,
            structured=None,
            text=None,
            more_texts=(),
            error_message=None,
            error_data=None,
            cut=(len(text), text[:KEPT_BEGINNING_CHARS]),
        )

    def to_json(self) -> dict[str, Any]:
        shown = self.kept()
        data = {
            "index": self.index,
            "method": self.method,
            "tool": self.tool,
            "arguments": self.arguments,
            "claims": self.claims,
            "meta": self.meta,
            "answer": shown.answer(),
            "latency_ms": round(self.latency_ms, 3),
        }
        return data if self.sent_by == "harness" else {**data, "sent_by": self.sent_by}

    def summary(self) -> str:
        return json.dumps(self.kept().answer(), ensure_ascii=False, sort_keys=True)[:2000]
