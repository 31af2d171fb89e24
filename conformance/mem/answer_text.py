"""The text of a ``mem_*`` answer and what wraps it, for the per-tool readers.

Every version answers a tool call with one text block. v1.7.0 and the reference write plain text.
From v1.1x on most tools write a JSON object in that text: the human text under ``"result"``
beside the project envelope (``project``, ``project_source``, ``project_path``, ``warning``) and
extra keys (``id``, ``sync_id``, ``results``…); a few write a JSON object of their own
(``mem_current_project``, ``mem_judge``). ``unpack`` gives a reader both the human text and the
JSON's fields, typed on access: a reader never takes a string for an id or a float for a count.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from mcp_types import CallToolResult, TextContent

from .facts import Envelope

#: Go's one-letter escapes in a ``%q`` string (``strconv.Quote``); JSON's read the same.
SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    '"': '"',
    "/": "/",
}
#: Go's numeric escapes and their number of hex digits.
HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
HIGH_SURROGATES = range(0xD800, 0xDC00)
LOW_SURROGATES = range(0xDC00, 0xE000)


@dataclass
class Unreadable(Exception):
    """An answer the reader cannot understand. ``text`` is the answer's whole text, the evidence
    a check shows with its error verdict; ``why`` says what did not fit."""

    tool: str
    text: str
    why: str

    def __str__(self) -> str:
        return f"the answer of {self.tool} cannot be read: {self.why}"


class TextAnswer(Protocol):
    """An answer already taken apart: the harness's ``Observation`` is one, so is ``Answer``."""

    @property
    def text(self) -> str | None: ...

    @property
    def is_error(self) -> bool | None: ...


@dataclass(frozen=True)
class Answer:
    """An answer's text (its text blocks joined by line breaks), whether the server flagged it
    ``isError``, its ``structuredContent`` (``None``: none) and, for an answer of several text
    blocks, each of them (one may be a JSON object beside a human line)."""

    text: str
    is_error: bool = False
    structured: Mapping[str, Any] | None = None
    blocks: tuple[str, ...] = ()


def answer_of(tool: str, result: CallToolResult | TextAnswer) -> Answer:
    """The text blocks of a ``CallToolResult`` (other kinds of block are let pass), or of an
    answer already taken apart (the harness keeps its first text block apart from the others,
    ``more_texts``), joined, with the ``structuredContent`` either carries (not one the tool's
    outputSchema refuses: ``Observation.output_refused``)."""
    if isinstance(result, CallToolResult):
        texts = [block.text for block in result.content if isinstance(block, TextContent)]
        structured = result.structured_content
        if not texts and not isinstance(structured, Mapping):
            raise Unreadable(tool, "", "the answer carries no text")
        return joined_answer(texts, bool(result.is_error), _object(structured))
    # structured content its tool's published outputSchema refuses is no layer to read
    refused = getattr(result, "output_refused", None)
    structured = None if refused else _object(getattr(result, "structured", None))
    if not isinstance(result.text, str) and structured is None:
        raise Unreadable(tool, "", "the answer carries no text")
    texts = [result.text or "", *getattr(result, "more_texts", ())]
    return joined_answer(texts, bool(result.is_error), structured)


def joined_answer(texts: list[str], is_error: bool, structured: Mapping[str, Any] | None) -> Answer:
    """An answer of these text blocks (joined, each kept where there are several)."""
    blocks = tuple(texts) if len(texts) > 1 else ()
    return Answer("\n".join(texts), is_error, structured, blocks)


def strings_of(value: Any) -> Iterator[str]:
    """Every string in a JSON value (object keys too), in its order."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings_of(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_of(item)


def everything_shown(answer: Answer) -> str:
    """All an answer shows, in its order: its text, then every string of its structured
    content (where a check only asks whether a unique token is there)."""
    return "\n".join([answer.text, *strings_of(answer.structured)])


def _object(value: Any) -> Mapping[str, Any] | None:
    return value if isinstance(value, Mapping) else None


class Fields:
    """The keys of a JSON object in an answer, each read as the type a reader needs.

    ``where`` names the object inside the answer (``results[2]``) in the reasons given."""

    def __init__(self, tool: str, raw: str, mapping: Mapping[str, Any], where: str = "") -> None:
        self.tool, self.raw, self.mapping, self.where = tool, raw, mapping, where

    def __contains__(self, key: str) -> bool:
        return key in self.mapping

    def unreadable(self, why: str) -> Unreadable:
        return Unreadable(self.tool, self.raw, f"{self.where}{why}")

    def _get(self, key: str, kinds: tuple[type, ...], what: str, *, optional: bool) -> Any:
        value = self.mapping.get(key)
        if value is None and optional:
            return None
        if key not in self.mapping:
            raise self.unreadable(f"the JSON has no {key!r}")
        if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
            raise self.unreadable(f"{key!r} is {value!r}, not {what}")
        return value

    def integer(self, key: str) -> int:
        return self._get(key, (int,), "an integer", optional=False)

    def optional_integer(self, key: str) -> int | None:
        return self._get(key, (int,), "an integer", optional=True)

    def string(self, key: str) -> str:
        return self._get(key, (str,), "a string", optional=False)

    def optional_string(self, key: str) -> str | None:
        return self._get(key, (str,), "a string", optional=True)

    def boolean(self, key: str) -> bool:
        return self._get(key, (bool,), "a boolean", optional=False)

    def optional_boolean(self, key: str) -> bool | None:
        return self._get(key, (bool,), "a boolean", optional=True)

    def number(self, key: str) -> float:
        return float(self._get(key, (int, float), "a number", optional=False))

    def optional_number(self, key: str) -> float | None:
        value = self._get(key, (int, float), "a number", optional=True)
        return None if value is None else float(value)

    def strings(self, key: str) -> tuple[str, ...]:
        """A list of strings; absent or ``null`` (Go's nil slice) is empty."""
        values = self._get(key, (list,), "a list", optional=True) or []
        if not all(isinstance(value, str) for value in values):
            raise self.unreadable(f"{key!r} is {values!r}, not a list of strings")
        return tuple(values)

    def objects(self, key: str) -> list[Fields]:
        """A list of objects; absent or ``null`` is empty."""
        values = self._get(key, (list,), "a list", optional=True) or []
        for index, value in enumerate(values):
            if not isinstance(value, dict):
                raise self.unreadable(f"{key}[{index}] is {value!r}, not an object")
        return [self.nested(value, f"{key}[{index}]") for index, value in enumerate(values)]

    def object(self, key: str) -> Fields:
        return self.nested(self._get(key, (dict,), "an object", optional=False), key)

    def nested(self, mapping: Mapping[str, Any], name: str) -> Fields:
        return Fields(self.tool, self.raw, mapping, f"{self.where}{name}: ")


@dataclass(frozen=True)
class Unpacked:
    """A successful answer ready for its reader.

    ``text`` is the human text: the whole text of a plain answer, the ``"result"`` of a JSON one,
    ``None`` for a JSON answer without one. ``fields`` is the JSON object, ``None`` for plain text.
    """

    tool: str
    raw: str
    text: str | None
    fields: Fields | None
    envelope: Envelope | None

    def unreadable(self, why: str) -> Unreadable:
        return Unreadable(self.tool, self.raw, why)

    def human_text(self) -> str:
        if self.text is None:
            raise self.unreadable('the JSON has no "result" text')
        return self.text

    def json(self) -> Fields:
        if self.fields is None:
            raise self.unreadable("the answer is plain text where a JSON object was expected")
        return self.fields


def json_object(tool: str, raw: str) -> Fields | None:
    """The JSON object an answer's text holds, or ``None`` for plain text (text that does not
    begin with ``{``: no plain answer of any version does)."""
    if not raw.lstrip().startswith("{"):
        return None
    try:
        value = json.loads(raw)
    except ValueError as error:
        raise Unreadable(
            tool, raw, f"the text begins like JSON but does not parse: {error}"
        ) from None
    return Fields(tool, raw, value)  # a text that begins with "{" and parses is an object


def unpack(tool: str, raw: str) -> Unpacked:
    fields = json_object(tool, raw)
    if fields is None:
        return Unpacked(tool, raw, raw, None, None)
    envelope = None
    if "project" in fields and "project_source" in fields:
        envelope = Envelope(
            project=fields.string("project"),
            source=fields.string("project_source"),
            path=fields.optional_string("project_path") or "",
            warning=fields.optional_string("warning"),
        )
    return Unpacked(tool, raw, fields.optional_string("result"), fields, envelope)


def go_quoted(text: str, start: int = 0) -> tuple[str, int] | None:
    """The string that Go's ``%q`` wrote at ``text[start]``, and the index after its closing
    quote; ``None`` when no well-formed quoted string starts there.

    Go writes invalid UTF-8 bytes as ``\\xHH``: those read as U+FFFD, as a UTF-8 decoder reads
    them. A JSON-style surrogate pair (``\\ud83d\\ude00``) reads as its one character."""
    if text[start : start + 1] != '"':
        return None
    out: list[str] = []
    index = start + 1
    while index < len(text):
        char = text[index]
        if char == '"':
            return "".join(out), index + 1
        if char == "\n":
            return None
        if char != "\\":
            out.append(char)
            index += 1
            continue
        letter = text[index + 1 : index + 2]
        if letter in SIMPLE_ESCAPES:
            out.append(SIMPLE_ESCAPES[letter])
            index += 2
            continue
        digits = HEX_ESCAPES.get(letter)
        if digits is None:
            return None
        code = hex_value(text[index + 2 : index + 2 + digits])
        if code is None:
            return None
        index += 2 + digits
        if letter == "x" and code >= 0x80:
            code = 0xFFFD
        elif code in HIGH_SURROGATES:
            low = (
                hex_value(text[index + 2 : index + 6]) if text[index : index + 2] == "\\u" else None
            )
            if low is None or low not in LOW_SURROGATES:
                return None
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            index += 6
        elif code in LOW_SURROGATES or code > 0x10FFFF:
            return None
        out.append(chr(code))
    return None


def hex_value(digits: str) -> int | None:
    if not digits or any(d not in "0123456789abcdefABCDEF" for d in digits):
        return None
    return int(digits, 16)


def quoted_line(unpacked: Unpacked, line: str, prefix: str, what: str) -> tuple[str, str]:
    """The Go-quoted string after ``prefix`` at the start of ``line``, and what follows it."""
    if not line.startswith(prefix):
        raise unpacked.unreadable(f"{line!r} does not begin with {prefix!r}")
    found = go_quoted(line, len(prefix))
    if found is None:
        raise unpacked.unreadable(f"the {what} in {line!r} is not a well-formed quoted string")
    value, end = found
    return value, line[end:]


def whole_number(unpacked: Unpacked, digits: str, what: str) -> int:
    """A count or an id written in a text: decimal digits only."""
    if not digits.isascii() or not digits.isdigit():
        raise unpacked.unreadable(f"the {what} {digits!r} is not a whole number")
    return int(digits)
