"""Reading a mem call's arguments, whatever the client sent, into typed values or a tool error.

The arguments reach the handler exactly as sent (``wire``): any JSON value, infinite numbers
for what is not I-JSON, strings with lone surrogates. Upstream reads them with unchecked type
assertions (a wrong type is taken as absent: ``hard_delete: "true"`` soft-deletes); here a
wrong type is a tool error naming the argument, so a client learns of its mistake. ``null`` is
an absent argument; unknown arguments are ignored, as upstream does.

Every string is redacted as it is read (``text.redact``: ``<private>…</private>`` spans become
``[REDACTED]``), so no private text reaches a tool, let alone the store or an answer: titles and
contents as upstream redacts them, and also types, summaries, sources and folders, which
upstream keeps. An argument that names something (``Arguments.name``: a project, a session id,
a topic key) and holds a private span is refused instead, so that two names never become one.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any

from .text import has_private_span, redact, shows_nothing

#: The longest of the short arguments (title, type, project, scope, topic key, ids, query...);
#: contents are not bounded here (they are capped when stored, ``text.CONTENT_CAP``).
MAX_FIELD_CHARS = 1000
#: The largest id SQLite stores.
MAX_ID = 2**63 - 1
_SURROGATE = re.compile("[\ud800-\udfff]")


class ToolError(Exception):
    """A call that fails: its one-line message is the tool result's text, with isError."""


class Arguments:
    """One call's arguments."""

    def __init__(self, sent: Any) -> None:
        if sent is None:
            sent = {}
        if not isinstance(sent, dict):  # an object with a repeated name reads as a number
            raise ToolError("arguments must be a JSON object, each name once")
        self.sent = sent

    def text(self, name: str, *, required: bool = False, bounded: bool = True) -> str | None:
        """A string argument, redacted and trimmed; one a reader sees nothing of (blanks and
        invisible characters only: ``text.shows_nothing``) counts as absent. ``bounded``: a
        short one, of at most ``MAX_FIELD_CHARS`` characters as sent; else a content, of any
        length. Lone surrogates become U+FFFD (they cannot be stored or answered as UTF-8)."""
        value = self.sent.get(name)
        if value is not None and not isinstance(value, str):
            raise ToolError(f"{name} must be a string")
        if value is not None and bounded and len(value) > MAX_FIELD_CHARS:
            raise ToolError(f"{name} is too long (at most {MAX_FIELD_CHARS} characters)")
        if value is None or shows_nothing(value):
            if required:
                raise ToolError(f"{name} is required")
            return None
        return redact(scalar(value))

    def name(self, name: str, *, required: bool = False) -> str | None:
        """A short argument that names something (a project, a session, a topic key). One that
        opens a ``<private>`` span, as written or once folded, is refused: redacted, names that
        differ only in their private text would become one name (two topics, one memory). One
        that holds a control character (a NUL, a line feed) is refused too: no name needs one,
        and a listing of names would show it raw. So is one holding a lone surrogate: read as
        U+FFFD, two names differing in their lone surrogates would become one."""
        value = self.text(name, required=required)
        if value is not None and _SURROGATE.search(self.sent[name]):
            raise ToolError(f"{name} must be Unicode text: it holds a lone surrogate")
        if value is not None and has_private_span(self.sent[name]):
            raise ToolError(
                f"{name} must not hold a <private> span: names differing only in private "
                "text would name the same thing"
            )
        if value is not None and any(unicodedata.category(char) == "Cc" for char in value):
            raise ToolError(f"{name} must not hold control characters")
        return value

    def identifier(self, name: str) -> int:
        """A required memory id: a positive whole number SQLite can hold."""
        value = self.sent.get(name)
        if value is None:
            raise ToolError(f"{name} is required")
        return _identifier(name, value)

    def identifiers(self, name: str) -> list[int]:
        """A required list of memory ids, each once, in the order first given."""
        value = self.sent.get(name)
        if value is None:
            raise ToolError(f"{name} is required")
        if not isinstance(value, list):
            raise ToolError(f"{name} must be an array of memory ids")
        return list(dict.fromkeys(_identifier(name, item) for item in value))

    def count(self, name: str, *, default: int, most: int) -> int:
        """A count such as a limit: absent, zero or negative is ``default``, more than
        ``most`` is ``most``."""
        value = self.sent.get(name)
        if value is None:
            return default
        number = _whole(name, value)
        return default if number <= 0 else min(number, most)

    def number(self, name: str) -> float | None:
        """An optional finite number."""
        value = self.sent.get(name)
        if value is None:
            return None
        if not _finite(value):
            raise ToolError(f"{name} must be a number")
        return float(value)

    def flag(self, name: str) -> bool:
        value = self.sent.get(name)
        if value is not None and not isinstance(value, bool):
            raise ToolError(f"{name} must be a boolean")
        return bool(value)


def scalar(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)


def _finite(value: Any) -> bool:
    """A JSON number that is not infinite (what ``wire`` makes of ``1e400``)."""
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    return is_number and math.isfinite(value)


def _whole(name: str, value: Any) -> int:
    """A JSON number with no fraction (``5.0`` is 5), as an integer."""
    if not _finite(value) or value != int(value):
        raise ToolError(f"{name} must be a whole number")
    return int(value)


def _identifier(name: str, value: Any) -> int:
    number = _whole(name, value)
    if not 0 < number <= MAX_ID:
        raise ToolError(f"{name} must be a memory id (a whole number from 1 to 2^63-1)")
    return number
