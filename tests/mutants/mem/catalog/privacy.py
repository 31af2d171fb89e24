"""mem servers that let private text through (PRIV) the way real ones do: a field or a tool whose
text is stored as given, a redaction pattern that is case-sensitive, stops at a line break or
replaces only the first span.

Each lets some ``<private>`` spans escape before the reference redacts: their tags are dropped
and the text between them kept (``sent``), so the reference stores the secret as plain text.
"""

from __future__ import annotations

import itertools
import re
from typing import Any, ClassVar

from engram_conformance.reference_impl.mem.server import Handlers

from ...caught import Caught
from ..seams import CallMutant, mem_caught

#: a private span as upstream matches it: any case, across lines, shortest
_SPAN = re.compile(r"<private>(.*?)</private>", re.IGNORECASE | re.DOTALL)


class LetsThrough(CallMutant):
    """The reference, with the spans ``escapes`` names kept in the arguments ``fields`` of the
    calls of ``tools`` (every tool and field when empty)."""

    tools: ClassVar[tuple[str, ...]] = ()
    fields: ClassVar[tuple[str, ...]] = ()

    def sent(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if self.tools and tool not in self.tools:
            return arguments
        return {
            name: self.unredacted(value)
            if isinstance(value, str) and (not self.fields or name in self.fields)
            else value
            for name, value in arguments.items()
        }

    def unredacted(self, text: str) -> str:
        order = itertools.count()

        def kept(span: re.Match[str]) -> str:
            return span[1] if self.escapes(span, next(order)) else span[0]

        return _SPAN.sub(kept, text)

    def escapes(self, span: re.Match[str], index: int) -> bool:
        """Whether ``span``, the ``index``-th of its text, escapes redaction (all by default)."""
        return True


class SaveTitleKept(LetsThrough):
    """mem_save redacts the content but stores the title as given."""

    tools, fields = ("mem_save",), ("title",)


class SaveKept(LetsThrough):
    """mem_save stores title and content as given (no redaction on save)."""

    tools, fields = ("mem_save",), ("title", "content")


class UpdateKept(LetsThrough):
    """mem_update stores the new title and content as given (only saves are redacted)."""

    tools, fields = ("mem_update",), ("title", "content")


class SummaryKept(LetsThrough):
    """mem_session_summary stores its content as given."""

    tools = ("mem_session_summary",)


class PassiveKept(LetsThrough):
    """mem_capture_passive saves its learnings as given."""

    tools = ("mem_capture_passive",)


class SessionEndKept(LetsThrough):
    """mem_session_end stores its summary as given (as upstream does)."""

    tools, fields = ("mem_session_end",), ("summary",)


class SuggestsFromRawText(LetsThrough):
    """mem_suggest_topic_key derives its key from the title and content as given."""

    tools = ("mem_suggest_topic_key",)


class CaseSensitive(LetsThrough):
    """Redaction matches only lowercase tags: ``<PRIVATE>…</PRIVATE>`` is kept."""

    def escapes(self, span: re.Match[str], index: int) -> bool:
        return "<private>" not in span[0]


class SingleLine(LetsThrough):
    """Redaction does not match across a line break (a pattern without DOTALL)."""

    def escapes(self, span: re.Match[str], index: int) -> bool:
        return "\n" in span[1]


class FirstSpanOnly(LetsThrough):
    """Redaction replaces only the first private span of a text."""

    def escapes(self, span: re.Match[str], index: int) -> bool:
        return index > 0


class EndsAtTheFirstClose(CallMutant):
    """A span ends at the first closing tag, as upstream's shortest pattern ends it: of a span
    holding another, the text after the inner span is kept."""

    def sent(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return {
            name: _SPAN.sub("[REDACTED]", value) if isinstance(value, str) else value
            for name, value in arguments.items()
        }


#: an opening tag that no closing tag follows
_UNCLOSED = re.compile(r"<private>(?!.*</private>)", re.IGNORECASE | re.DOTALL)


class UnclosedKept(CallMutant):
    """An opening tag that nothing closes is dropped, and the text after it kept."""

    def sent(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return {
            name: _UNCLOSED.sub("", value) if isinstance(value, str) else value
            for name, value in arguments.items()
        }


#: each mutant and what it breaks
MUTANTS: list[tuple[type[Handlers], Caught]] = [
    (SaveTitleKept, mem_caught("PRIV-001")),
    (SaveKept, mem_caught("PRIV-001", "PRIV-002", "PRIV-004")),
    (CaseSensitive, mem_caught("PRIV-002")),
    (SingleLine, mem_caught("PRIV-002")),
    (FirstSpanOnly, mem_caught("PRIV-002")),
    (UpdateKept, mem_caught("PRIV-002")),
    (SummaryKept, mem_caught("PRIV-003")),
    (PassiveKept, mem_caught("PRIV-003")),
    (SessionEndKept, mem_caught("PRIV-003")),
    (SuggestsFromRawText, mem_caught("PRIV-003")),
    (EndsAtTheFirstClose, mem_caught("PRIV-004")),
    (UnclosedKept, mem_caught("PRIV-005")),
]
