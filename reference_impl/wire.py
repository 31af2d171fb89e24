"""Reading JSON-RPC messages leniently, so the contract rather than the SDK answers bad arguments.

The SDK refuses, before any handler runs, JSON text whose strings are not Unicode scalar values
(an escaped lone surrogate), JSON nested deeper than about 200 levels, and ``tools/call``
arguments that are not an object. The contract answers those arguments ``INVALID_SCHEMA``
(rule SCHEMA-032 and the closed schemas), and only after the protocol checks. So both
transports parse with the standard library, set a ``tools/call``'s arguments aside exactly as
sent, and hand the SDK the rest of the message with ``{}`` for arguments; the handler takes the
arguments from ``SentArguments``. Invalid UTF-8 bytes are decoded to lone surrogates, so they
too reach the contract's own reading of the arguments: the six-tool validator refuses them;
the mem reference refuses them in names and reads them as U+FFFD in texts.

What is not I-JSON (RFC 7493) is read as an infinite number, which the contract already answers
``INVALID_SCHEMA`` inside arguments (SCHEMA-032) and which is no valid id or params in the
envelope: an object with a repeated key, an integer too long for the interpreter to read, and a
value nested deeper than ``MAX_DEPTH`` (no argument schema nests so deep). So such a request is
still read, and answered under its id (rule HOST-025).

Reading costs time linear in the message, whatever its bytes: the standard parser reads the text
once, and only a text nested past the parser's own limit is first cut to ``MAX_DEPTH`` by one
more pass (``_shallow``), whose tokens never overlap (an unterminated string is one token to the
end of the text). A repeated key is told without a Python call per object: the parser keeps one
member per key, so the objects read hold fewer members than the text writes colons outside its
strings exactly when a key is repeated; only then is the text read again with a hook per
object. The transports read no message longer than ``MAX_MESSAGE_BYTES``.

A message may begin with a UTF-8 byte order mark, which is ignored: RFC 8259 (section 8.1) lets
a parser do so, and MCP says nothing against it.
"""

from __future__ import annotations

import codecs
import gc
import json
import math
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import chain, compress, repeat
from operator import is_
from typing import Any

from engram_conformance.spec.json_text import outside_strings
from mcp.server.context import ServerRequestContext
from mcp_types import CallToolRequestParams, JSONRPCMessage, jsonrpc_message_adapter
from pydantic import ValidationError

#: The ASGI scope key under which the HTTP transport passes a call's arguments to the handler.
SCOPE_KEY = "engram.sent_arguments"
#: The longest message read, on either transport: a 1 MiB argument object sent with every
#: character \\u-escaped is up to 6 MiB of JSON text.
MAX_MESSAGE_BYTES = 8 * 1024 * 1024
#: Values nested deeper are read as an infinite number; the SDK's own reader stops near 200.
MAX_DEPTH = 128
_SURROGATE = re.compile("[\ud800-\udfff]")
#: In a text whose escapes are masked (``_masked``): a string (skipped whole, so its brackets do
#: not count; an unterminated one runs to the end of the text, so that no later quote starts a
#: token again), a run of openers or of closers.
_TOKEN = re.compile(r'"[^"]*(?:"|\Z)|([\[{]+)|([\]}]+)')
_UNREADABLE_TEXT = "1e400"
#: What a value of each type becomes below ``MAX_DEPTH`` (``dict.get`` keeps any other value).
_CUT = {dict: math.inf, list: math.inf}
_pause_lock = threading.Lock()
_paused = 0
_resume = False


@dataclass(frozen=True)
class SentArguments:
    """A ``tools/call``'s arguments as the client sent them (any JSON value)."""

    value: Any


class NotJson(ValueError):
    """The bytes are not JSON text: JSON-RPC -32700."""


class InvalidRequest(ValueError):
    """JSON text that is no JSON-RPC message (-32600), with the request's id when it has one."""

    def __init__(self, request_id: str | int | None) -> None:
        super().__init__("Invalid Request")
        self.request_id = request_id


@dataclass(frozen=True)
class Reading:
    """A message as read: what the SDK may see (JSON data, and validated) and the arguments."""

    forwarded: Any
    message: JSONRPCMessage
    sent: SentArguments | None


def read(data: bytes) -> Reading:
    """One JSON-RPC message; raises ``NotJson`` or ``InvalidRequest`` (a request whose id is not
    a string or an integer gets id None: JSON-RPC's ``-32600``, not a notification)."""
    message = parse(data)
    if _is_request(message) and _request_id(message) is None:
        raise InvalidRequest(None)
    forwarded, sent = set_aside(message)
    try:
        validated = jsonrpc_message_adapter.validate_python(forwarded, by_name=False)
    except ValidationError:
        raise InvalidRequest(_request_id(forwarded)) from None
    return Reading(forwarded, validated, sent)


def parse(data: bytes) -> Any:
    """JSON text as Python data, what is not I-JSON read as an infinite number (see above)."""
    text = data.removeprefix(codecs.BOM_UTF8).decode("utf-8", "surrogateescape")
    try:
        with _collector_paused():
            try:
                value = _loads(text)
                levels = _levels(value)
                if _repeats_a_key(text, levels):
                    value = _loads(text, object_pairs_hook=_object)
                    levels = _levels(value)
            except RecursionError:  # nested past the parser's limit: cut first, then read
                value = _loads(_shallow(text), object_pairs_hook=_object)
                levels = _levels(value)
    except ValueError as error:
        raise NotJson(type(error).__name__) from error
    _cut_deep(levels)
    return value


def _loads(text: str, **hooks: Any) -> Any:
    """The standard parser; a text holding an integer longer than ``int`` reads (``int``'s
    ValueError, which is no ``JSONDecodeError``) is read again with a hook for integers, which
    only then pays a Python call per number."""
    try:
        return json.loads(text, **hooks)
    except json.JSONDecodeError:
        raise
    except ValueError:
        return json.loads(text, parse_int=_integer, **hooks)


def _repeats_a_key(text: str, levels: list[Level]) -> bool:
    """Whether an object of the JSON text repeats a key: its objects as read (the parser keeps
    one member per key) hold fewer members than the text writes colons outside its strings.
    Removing the strings costs a pass, so the text's colons are counted first: as many as the
    members read, none is in a string and none is repeated."""
    read = _members_read(levels)
    return text.count(":") != read and outside_strings(text).count(":") != read


def _members_read(levels: list[Level]) -> int:
    """How many members the objects read hold: fewer than written when a key was repeated
    (the parser keeps the last), which tells it without a Python call per object."""
    return sum(sum(map(len, level.objects)) for level in levels)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while the parser builds a message's values: JSON
    data holds no cycles, and the collector's passes over millions of fresh lists cost more
    than building them (2.0 s against 0.9 s for 8 MiB of empty arrays). Parses may overlap in
    worker threads: the collector resumes when the last one ends, if it was running before."""
    global _paused, _resume
    with _pause_lock:
        if _paused == 0:
            _resume = gc.isenabled()
            gc.disable()
        _paused += 1
    try:
        yield
    finally:
        with _pause_lock:
            _paused -= 1
            if _paused == 0 and _resume:
                gc.enable()


@dataclass(frozen=True)
class Level:
    """The objects and arrays at one depth of a value, those that hold something."""

    objects: list[dict[str, Any]]
    arrays: list[list[Any]]

    @classmethod
    def of(cls, items: list[Any]) -> Level:
        present = set(map(type, items))  # a flood's level holds one kind: one pass tells it
        if dict not in present and list not in present:
            return cls([], [])
        kinds = list(map(type, items))

        def those(kind: type) -> list[Any]:
            return list(compress(items, map(is_, kinds, repeat(kind)))) if kind in present else []

        return cls(those(dict), those(list))

    def below(self) -> Level:
        """The level beneath: what these hold, empty containers and scalars that are false left
        out (neither holds anything), each step in C (a Python call per item, as a function
        telling objects from arrays, cost 0.4 s for 8 MiB of empty objects)."""
        held = chain(
            chain.from_iterable(self.arrays), chain.from_iterable(map(dict.values, self.objects))
        )
        return Level.of(list(filter(None, held)))


def _levels(root: Any) -> list[Level]:
    """The containers of ``root`` that hold something, level by level, ``root`` first."""
    levels = []
    level = Level.of([root] if root else [])
    while level.objects or level.arrays:
        levels.append(level)
        level = level.below()
    return levels


def _cut_deep(levels: list[Level]) -> None:
    """Replace, in place, each container nested deeper than ``MAX_DEPTH`` by an infinite number,
    as ``_shallow`` does in the text: what the containers at ``MAX_DEPTH`` hold as a container."""
    if len(levels) < MAX_DEPTH:
        return
    deepest = levels[MAX_DEPTH - 1]
    for array in deepest.arrays:
        array[:] = map(_CUT.get, map(type, array), array)
    for record in deepest.objects:
        values = list(map(_CUT.get, map(type, record.values()), record.values()))
        record.update(zip(list(record), values, strict=True))


def _shallow(text: str) -> str:
    """``text`` with each value nested deeper than ``MAX_DEPTH`` replaced by ``1e400``; linear
    in the text (a run of brackets is one step), and text that is not JSON stays not JSON."""
    pieces: list[str] = []
    depth = start = 0
    for token in _TOKEN.finditer(_masked(text)):
        run = token.end() - token.start()
        if token.group(1) is not None:
            if depth <= MAX_DEPTH < depth + run:
                pieces.append(text[start : token.start() + MAX_DEPTH - depth])
            depth += run
        elif token.group(2) is not None:
            if depth - run <= MAX_DEPTH < depth:
                pieces.append(_UNREADABLE_TEXT)
                start = token.start() + depth - MAX_DEPTH
            depth -= run
    if depth <= MAX_DEPTH:
        pieces.append(text[start:])
    return "".join(pieces)


def _masked(text: str) -> str:
    """``text`` with each escape of a backslash or a quote turned into two spaces: the same
    length, and a quote left in it opens or closes a string."""
    return text.replace("\\\\", "  ").replace('\\"', "  ")


def _object(pairs: list[tuple[str, Any]]) -> Any:
    value = dict(pairs)
    return value if len(value) == len(pairs) else math.inf


def _integer(text: str) -> int | float:
    """An integer, or an infinite number when it has more digits than ``int`` reads."""
    if len(text) > sys.get_int_max_str_digits():
        return -math.inf if text.startswith("-") else math.inf
    return int(text)


def _is_request(message: Any) -> bool:
    return isinstance(message, dict) and "method" in message and "id" in message


def _request_id(message: Any) -> str | int | None:
    request_id = message.get("id") if isinstance(message, dict) else None
    valid = isinstance(request_id, str | int) and not isinstance(request_id, bool)
    return request_id if valid else None


def set_aside(message: Any) -> tuple[Any, SentArguments | None]:
    """The message the SDK may see, and the arguments of a ``tools/call`` request.

    In the message returned, a ``tools/call``'s arguments are ``{}`` and every other string is
    made of Unicode scalar values (a lone surrogate becomes U+FFFD), since the SDK echoes some of
    them, such as the request id, and cannot encode a lone surrogate.
    """
    sent = None
    if isinstance(message, dict) and message.get("method") == "tools/call":
        params = message.get("params")
        if isinstance(params, dict) and "arguments" in params:
            sent = SentArguments(params["arguments"])
            message = {**message, "params": {**params, "arguments": {}}}
    return _scalar_strings(message), sent


def encode(message: Any) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _scalar_strings(value: Any) -> Any:
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_scalar_strings(key): _scalar_strings(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_scalar_strings(item) for item in value]
    return value


def sent_arguments(ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> Any:
    """A ``tools/call`` handler's arguments as the client sent them: set aside by our
    transports, or the SDK's own reading on a transport that does not (in-process)."""
    carrier = ctx.request
    if isinstance(carrier, SentArguments):  # stdio
        return carrier.value
    sent = getattr(carrier, "scope", {}).get(SCOPE_KEY)  # streamable HTTP
    if isinstance(sent, SentArguments):
        return sent.value
    return params.arguments
